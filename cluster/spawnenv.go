package cluster

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Spawning from another process (a shell task's command, through
// worksteal spawn): the worker listens on a Unix socket in a directory of
// its own (mode 0700), and a handler's SpawnEnv names the socket and a
// random token that stands for the running task. A request is one JSON
// line {"token","handler","payload"} on its own connection; the answer is
// one line, "ok" or "error: ...". A token is valid until its task's tree
// is done.

// Environment variables set by SpawnEnv.
const (
	envSpawnSocket = "WORKSTEAL_SPAWN_SOCKET"
	envSpawnToken  = "WORKSTEAL_SPAWN_TOKEN"
)

// spawnServer is a serving worker's socket for spawn requests.
type spawnServer struct {
	once sync.Once
	err  error
	dir  string
	ln   net.Listener

	mu     sync.Mutex
	tokens map[string]context.Context // token -> the task's handler ctx
}

// SpawnEnv returns the environment (KEY=VALUE entries) that lets a process
// started by the handler whose ctx it is given spawn children of its task
// with SpawnFromEnv, as worksteal spawn does: they join the task's tree as
// if the handler had called Spawn. The entries are valid while the task
// runs. ErrNotInTask outside a handler.
func SpawnEnv(ctx context.Context) ([]string, error) {
	r := runningFrom(ctx)
	if r == nil || r.s == nil {
		return nil, ErrNotInTask
	}
	sp := r.s.spawnSrv
	if err := sp.start(); err != nil {
		return nil, err
	}
	b := make([]byte, 16)
	rand.Read(b)
	token := hex.EncodeToString(b)
	sp.mu.Lock()
	sp.tokens[token] = ctx
	sp.mu.Unlock()
	context.AfterFunc(r.ctx, func() { // the ctx of its tree: it ends with the delivered task's run
		sp.mu.Lock()
		delete(sp.tokens, token)
		sp.mu.Unlock()
	})
	return []string{envSpawnSocket + "=" + sp.ln.Addr().String(), envSpawnToken + "=" + token}, nil
}

// SpawnFromEnv spawns a child of the task that started this process
// (see SpawnEnv): handler runs payload in the task's job. It fails with
// ErrNotInTask when the environment names no task, and with the worker's
// answer otherwise.
func SpawnFromEnv(handler string, payload []byte) error {
	sock, token := os.Getenv(envSpawnSocket), os.Getenv(envSpawnToken)
	if sock == "" || token == "" {
		return fmt.Errorf("%w: $%s and $%s are not set (run from a task of worksteal worker)", ErrNotInTask, envSpawnSocket, envSpawnToken)
	}
	c, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		return fmt.Errorf("cluster: spawn: the worker's socket %s: %w", sock, err)
	}
	defer c.Close()
	req, _ := json.Marshal(spawnRequest{Token: token, Handler: handler, Payload: payload})
	if _, err := c.Write(append(req, '\n')); err != nil {
		return fmt.Errorf("cluster: spawn: %w", err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("cluster: spawn: no answer from the worker: %w", err)
	}
	line = strings.TrimSpace(line)
	if line != "ok" {
		return errors.New(strings.TrimPrefix(line, "error: "))
	}
	return nil
}

type spawnRequest struct {
	Token   string `json:"token"`
	Handler string `json:"handler"`
	Payload []byte `json:"payload"`
}

func newSpawnServer() *spawnServer { return &spawnServer{tokens: map[string]context.Context{}} }

// start listens on first use.
func (sp *spawnServer) start() error {
	sp.once.Do(func() {
		if sp.dir, sp.err = os.MkdirTemp("", "worksteal-spawn-"); sp.err != nil {
			return
		}
		sp.ln, sp.err = net.Listen("unix", filepath.Join(sp.dir, "sock"))
		if sp.err != nil {
			os.RemoveAll(sp.dir)
			return
		}
		go sp.accept()
	})
	return sp.err
}

func (sp *spawnServer) accept() {
	for {
		c, err := sp.ln.Accept()
		if err != nil {
			return
		}
		go sp.serve(c)
	}
}

func (sp *spawnServer) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return
	}
	var req spawnRequest
	if err := json.Unmarshal(line, &req); err != nil {
		fmt.Fprintf(c, "error: malformed spawn request: %v\n", err)
		return
	}
	sp.mu.Lock()
	ctx, ok := sp.tokens[req.Token]
	sp.mu.Unlock()
	if !ok {
		fmt.Fprintf(c, "error: %v: the task of this spawn token has finished\n", ErrNotInTask)
		return
	}
	if err := Spawn(ctx, req.Handler, req.Payload); err != nil {
		fmt.Fprintf(c, "error: %v\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	fmt.Fprintln(c, "ok")
}

// close stops listening and removes the socket.
func (sp *spawnServer) close() {
	sp.once.Do(func() { sp.err = errors.New("cluster: the worker has stopped") })
	if sp.ln != nil {
		sp.ln.Close()
		os.RemoveAll(sp.dir)
	}
}
