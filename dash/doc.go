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
// The package uses only the standard library and the runtime's public
// Stats, so watching a pool links nothing else.
package dash
