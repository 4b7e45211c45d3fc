package runner

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Settings are what a command line can say about any backend.
type Settings struct {
	// Runtime is a runtime binary for the OCI backend (runc, crun, a path).
	Runtime string
	// StateDir overrides where backends keep their private state.
	StateDir string
}

// Factory makes a backend from settings.
type Factory func(Settings) Backend

var (
	mu        sync.Mutex
	factories = map[string]Factory{}
)

// Register makes a backend known by name (and aliases). Backend packages
// call it from init, as database/sql drivers do; commands import them.
func Register(f Factory, names ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, n := range names {
		factories[n] = f
	}
}

// New returns the backend registered under name. "auto" and "" choose for
// untrusted content, which means a container: the OCI backend. (Trust
// routing to lighter backends comes with them.)
func New(name string, s Settings) (Backend, error) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || name == "auto" {
		name = "oci"
	}
	f, ok := factories[name]
	if !ok {
		var known []string
		for n := range factories {
			known = append(known, n)
		}
		slices.Sort(known)
		return nil, fmt.Errorf("%w: backend %q is not available in this build (known: %s)", ErrUnavailable, name, strings.Join(known, ", "))
	}
	return f(s), nil
}
