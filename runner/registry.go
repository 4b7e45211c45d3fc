package runner

import (
	"context"
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
	primary   []string
)

// Register makes a backend known by its name, names[0], and the aliases
// that follow. Backend packages call it from init, as database/sql drivers
// do; commands import them.
func Register(f Factory, names ...string) {
	mu.Lock()
	defer mu.Unlock()
	primary = append(primary, names[0])
	for _, n := range names {
		factories[n] = f
	}
}

// RegisterAlias makes f known under name without making it a backend of
// its own in Names (such as "oci": whichever OCI runtime is installed).
func RegisterAlias(f Factory, name string) {
	mu.Lock()
	defer mu.Unlock()
	factories[name] = f
}

// Names lists the registered backends by their own names, without
// aliases, in a stable order: what doctor and gc go through.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	out := slices.Clone(primary)
	slices.Sort(out)
	return out
}

// Collector is a backend that can remove what killed runs left behind.
type Collector interface {
	// GC removes leftovers whose golem-box process is gone and returns
	// their ids; live runs stay.
	GC(ctx context.Context) ([]string, error)
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
