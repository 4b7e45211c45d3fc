package doctor

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/golem-box/golem-box/runner"
)

// Host is what the kernel offers.
type Host struct {
	Kernel string `json:"kernel,omitempty"`
	// Cgroups is "v2", "hybrid" (v1 controllers, v2 at
	// /sys/fs/cgroup/unified), "v1" or "" when there are none.
	Cgroups string `json:"cgroups"`
	// UserNamespaces is user.max_user_namespaces (-1 when unknown).
	UserNamespaces int  `json:"max_user_namespaces"`
	Seccomp        bool `json:"seccomp"`
	Landlock       bool `json:"landlock"`
	// LandlockABI is the kernel's Landlock ABI version (0: none).
	LandlockABI int      `json:"landlock_abi,omitempty"`
	LSMs        []string `json:"lsms,omitempty"`
}

// Report is the whole answer.
type Report struct {
	Host     Host               `json:"host"`
	Backends []runner.Diagnosis `json:"backends"`
}

// Usable lists the names of the usable backends.
func (r *Report) Usable() []string {
	var out []string
	for _, d := range r.Backends {
		if d.Usable {
			out = append(out, d.Backend)
		}
	}
	return out
}

// Check diagnoses the host and the named backends (all registered ones
// when names is empty), the backends concurrently, since a daemon that
// does not answer costs its timeout.
func Check(ctx context.Context, names []string, s runner.Settings) *Report {
	if len(names) == 0 {
		names = runner.Names()
	}
	r := &Report{Host: ReadHost(""), Backends: make([]runner.Diagnosis, len(names))}
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() {
			b, err := runner.New(n, s)
			if err != nil {
				r.Backends[i] = runner.FromAvailable(n, err)
				return
			}
			d := runner.Diagnose(ctx, b)
			d.Backend = n
			r.Backends[i] = d
		})
	}
	wg.Wait()
	return r
}

// ReadHost reads the host's facts from /proc and /sys under root ("" is
// the real root; tests give a fake tree).
func ReadHost(root string) Host {
	h := Host{UserNamespaces: -1}
	read := func(p string) string {
		b, err := os.ReadFile(root + p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	h.Kernel = read("/proc/sys/kernel/osrelease")
	if n, err := strconv.Atoi(read("/proc/sys/user/max_user_namespaces")); err == nil {
		h.UserNamespaces = n
	}
	for _, line := range strings.Split(read("/proc/self/status"), "\n") {
		if v, ok := strings.CutPrefix(line, "Seccomp:"); ok {
			h.Seccomp = strings.TrimSpace(v) != ""
		}
	}
	if lsm := read("/sys/kernel/security/lsm"); lsm != "" {
		h.LSMs = strings.Split(lsm, ",")
		for _, l := range h.LSMs {
			if l == "landlock" {
				h.Landlock = true
			}
		}
	}
	h.Cgroups = cgroupMode(read("/proc/self/mountinfo"))
	if root == "" {
		if h.LandlockABI = landlockABI(); h.LandlockABI > 0 {
			h.Landlock = true
		}
	}
	return h
}

// cgroupMode reads the cgroup layout from mountinfo.
func cgroupMode(mountinfo string) string {
	v1, v2root, v2unified := false, false, false
	for _, line := range strings.Split(mountinfo, "\n") {
		// ... mount-point ... - fstype source options
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 1 {
			continue
		}
		switch mp := f[4]; g[0] {
		case "cgroup2":
			v2root = v2root || mp == "/sys/fs/cgroup"
			v2unified = v2unified || mp == "/sys/fs/cgroup/unified"
		case "cgroup":
			v1 = true
		}
	}
	switch {
	case v2root:
		return "v2"
	case v1 && v2unified:
		return "hybrid"
	case v1:
		return "v1"
	}
	return ""
}
