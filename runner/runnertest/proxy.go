package runnertest

import (
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Proxy is a unix socket that forwards every connection to a daemon's
// socket until Cut, after which the daemon looks gone to its clients: the
// way to test a daemon that stops in the middle of a run without stopping
// the one every other test uses.
type Proxy struct {
	Path string

	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	cut   bool
}

// NewProxy listens on a fresh socket and forwards to target.
func NewProxy(t *testing.T, target string) *Proxy {
	t.Helper()
	p := &Proxy{Path: filepath.Join(t.TempDir(), "daemon.sock")}
	ln, err := net.Listen("unix", p.Path)
	require.NoError(t, err)
	p.ln = ln
	t.Cleanup(p.Cut)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", target)
			if err != nil {
				c.Close()
				continue
			}
			if !p.track(c, up) {
				return
			}
			go pipe(c, up)
			go pipe(up, c)
		}
	}()
	return p
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	p.conns = append(p.conns, cs...)
	return true
}

func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// Cut closes the socket and every connection through it.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return
	}
	p.cut = true
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
}
