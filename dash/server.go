package dash

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"sync"
	"time"
)

//go:embed page
var pageFS embed.FS

// Source gives the dashboard its data: Snapshot returns a JSON-encodable
// view whose "kind" field ("pool" or "cluster") tells the page how to draw
// it. It is called from one goroutine at a time per request and from the
// event loop; it must be safe for concurrent use.
type Source interface {
	Snapshot() any
}

// SourceFunc adapts a function to Source.
type SourceFunc func() any

// Snapshot calls f.
func (f SourceFunc) Snapshot() any { return f() }

// Config sets up a Server; its zero value is useful.
type Config struct {
	// Interval is the time between two live updates sent to a page;
	// 0 means 500ms. However fast the source changes, each page gets at
	// most one message per interval.
	Interval time.Duration
	// Title names the page; "" means "worksteal".
	Title string
}

// Server serves the dashboard: the page at /, the source's snapshot as
// JSON at /api/state, the page's title and interval as JSON at
// /api/config, and live updates as server-sent events at /events.
// More read-only routes can be added with Handle. It only answers GET and
// HEAD: a dashboard never changes what it shows.
type Server struct {
	mux *http.ServeMux
	hub *hub
	cfg Config
}

// New returns a dashboard Server of src.
//
// Panics: if src is nil.
func New(src Source, cfg Config) *Server {
	if src == nil {
		panic("dash: nil source")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 500 * time.Millisecond
	}
	if cfg.Title == "" {
		cfg.Title = "worksteal"
	}
	s := &Server{mux: http.NewServeMux(), cfg: cfg, hub: &hub{src: src, every: cfg.Interval, clients: map[chan []byte]struct{}{}, closed: make(chan struct{})}}
	static, _ := fs.Sub(pageFS, "page")
	s.mux.Handle("GET /", http.FileServerFS(static))
	s.mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, src.Snapshot()) })
	s.mux.HandleFunc("GET /api/config", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"title": cfg.Title, "interval_ms": cfg.Interval.Milliseconds()})
	})
	s.mux.HandleFunc("GET /events", s.hub.serve)
	return s
}

// Close ends the open event streams, and those opened later at once. An
// event stream never goes idle, so call Close before http.Server.Shutdown
// (for example with RegisterOnShutdown), or Shutdown waits for its
// deadline. The page and the JSON are still served.
func (s *Server) Close() {
	s.hub.closeOnce.Do(func() { close(s.hub.closed) })
}

// Handle adds a read-only route (GET and HEAD only), e.g. "/metrics".
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle("GET "+pattern, h) }

// HandleJSON adds a read-only route that answers with value(), computed
// anew for each request, as indented JSON, as /api/state does.
func (s *Server) HandleJSON(pattern string, value func() any) {
	s.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, value()) }))
}

// ServeHTTP answers GET and HEAD requests; any other method gets 405.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "the dashboard is read-only", http.StatusMethodNotAllowed)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// writeJSON writes v as an indented JSON response.
func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// hub sends snapshots to the pages that listen at /events.
//
// Rate: one goroutine (loop) takes a snapshot every interval while at least
// one page listens, and hands the encoded bytes to every page's channel of
// capacity 1, replacing a message the page has not taken yet. So a page
// gets at most one message per interval however fast tasks run, a slow page
// gets the latest state rather than a backlog, and with no page the source
// is not read at all.
type hub struct {
	src   Source
	every time.Duration

	mu      sync.Mutex
	clients map[chan []byte]struct{}
	looping bool   // loop runs; set and cleared under mu
	last    []byte // latest message sent

	closed    chan struct{} // closed by Server.Close: event streams end
	closeOnce sync.Once
}

func (h *hub) serve(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming not supported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	ch, leave := h.subscribe()
	defer leave()
	fmt.Fprintf(w, "retry: 1000\n\n")
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.closed:
			return
		case msg := <-ch:
			if _, err := fmt.Fprintf(w, "data: %s\n\n", msg); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}

// subscribe registers a page: its channel gets the state now, then at most
// one message per interval. leave unregisters it.
func (h *hub) subscribe() (ch <-chan []byte, leave func()) {
	c := make(chan []byte, 1)
	c <- h.encode() // the state now, at once
	h.mu.Lock()
	h.clients[c] = struct{}{}
	if !h.looping {
		h.looping = true
		go h.loop()
	}
	h.mu.Unlock()
	return c, func() {
		h.mu.Lock()
		delete(h.clients, c)
		h.mu.Unlock()
	}
}

// encode takes a snapshot as one line of JSON.
func (h *hub) encode() []byte {
	b, err := json.Marshal(h.src.Snapshot())
	if err != nil {
		b, _ = json.Marshal(map[string]string{"kind": "error", "error": err.Error()})
	}
	return b
}

// loop broadcasts a snapshot every interval until no page listens.
func (h *hub) loop() {
	t := time.NewTicker(h.every)
	defer t.Stop()
	for range t.C {
		h.mu.Lock()
		if len(h.clients) == 0 {
			h.looping = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		msg := h.encode()
		h.mu.Lock()
		if bytes.Equal(msg, h.last) {
			h.mu.Unlock()
			continue
		}
		h.last = msg
		for ch := range h.clients {
			select { // replace what the page has not taken yet
			case <-ch:
			default:
			}
			ch <- msg
		}
		h.mu.Unlock()
	}
}
