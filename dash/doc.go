// Package dash serves a live dashboard: one web page, embedded in the
// binary (no CDN, no build step), that redraws itself from JSON sent over
// server-sent events. The same page shows a work-stealing Pool (per-worker
// utilization, steals, parks) and a cluster (see package clusterdash and
// "worksteal serve --http"), so the view a user learns once serves every
// layer.
//
// A Go program watches its own pool by mounting a handler:
//
//	pool, _ := worksteal.New(worksteal.Config{})
//	d := dash.New(dash.Pool(pool), dash.Config{})
//	mux := http.NewServeMux()
//	mux.Handle("/dash/", http.StripPrefix("/dash", d))
//	srv := &http.Server{Addr: "localhost:8080", Handler: mux}
//	srv.RegisterOnShutdown(d.Close) // else Shutdown waits for the open event streams
//	go srv.ListenAndServe()
//
// Routes: / the page, /api/state the state as JSON (the page draws it at
// once, then follows the events), /api/config the page's settings as JSON
// ({"title": Config.Title, "interval_ms": Config.Interval}), /events the
// live updates as server-sent events. A Server answers only GET and HEAD. The page gets at most one
// message per Config.Interval (500ms), whatever the rate of the work it
// shows: the server takes one snapshot per interval while a page listens,
// and none when no page does.
//
// A pool's state (Pool's Snapshot, /api/state) is a JSON object; a Source
// of its own whose Snapshot has these keys is drawn as a pool too:
//
//	{"kind": "pool", "time": "2026-11-27T16:00:00Z",
//	 "utilization": 0.93, "imbalance": 1.02, "steal_rate": 0.004, "tasks_per_s": 51200,
//	 "workers": [{"worker": 0, "executed": 1200, "stolen": 31, "stolen_from": 29,
//	              "steal_attempts": 80, "parks": 4, "busy_s": 1.9, "idle_s": 0.1,
//	              "utilization": 0.95, "steals_per_s": 3.5, "parks_per_s": 0.2}, …]}
//
// Counters ("executed" … "idle_s") are since the pool started; the rates
// and the top-level "utilization" cover the last second or more between
// snapshots; "imbalance" and "steal_rate" the pool's life. A Go program
// reads the same figures from worksteal.Pool.Stats.
//
// The package uses only the standard library and the runtime's public
// Stats, so watching a pool links nothing else.
package dash
