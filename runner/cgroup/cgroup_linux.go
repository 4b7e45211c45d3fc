package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Root is where the cgroup filesystems are mounted.
var Root = "/sys/fs/cgroup"

// Limits are what a group enforces; zero leaves a limit unset.
type Limits struct {
	Memory    int64 // bytes
	PIDs      int64
	CPUQuota  int64 // microseconds per period
	CPUPeriod uint64
}

// Group is one run's control group.
type Group struct {
	// Dirs are the group's directories, one per v1 controller or the one v2 directory.
	Dirs []string
	v2   bool
}

// Unified says whether the host uses the v2 tree only.
func Unified() bool {
	_, err := os.Stat(filepath.Join(Root, "cgroup.controllers"))
	return err == nil
}

// dirs are the directories of the group of id.
func dirs(id string) (dirs []string, v2 bool) {
	if Unified() {
		return []string{filepath.Join(Root, "golem-box", id)}, true
	}
	for _, c := range []string{"memory", "pids", "cpu"} {
		dirs = append(dirs, filepath.Join(Root, c, "golem-box", id))
	}
	return dirs, false
}

// Writable returns nil when this process can create groups, or says why not.
func Writable() error {
	ds, v2 := dirs("probe")
	for _, d := range ds {
		parent := filepath.Dir(filepath.Dir(d)) // the controller's root
		if err := syscall.Access(parent, 2 /* W_OK */); err != nil {
			how := "run as root"
			if v2 {
				how = "run as root, or from a delegated cgroup v2 tree"
			}
			return fmt.Errorf("cannot create control groups under %s (%v): %s", parent, err, how)
		}
	}
	return nil
}

// Create makes the group of id with limits l.
func Create(id string, l Limits) (*Group, error) {
	ds, v2 := dirs(id)
	g := &Group{v2: v2}
	if v2 {
		// Controllers must be enabled for the children of /golem-box.
		top := filepath.Dir(ds[0])
		if err := os.MkdirAll(top, 0o755); err != nil {
			return nil, fmt.Errorf("cgroup: %w", err)
		}
		_ = os.WriteFile(filepath.Join(Root, "cgroup.subtree_control"), []byte("+memory +pids +cpu"), 0o644)
		if err := os.WriteFile(filepath.Join(top, "cgroup.subtree_control"), []byte("+memory +pids +cpu"), 0o644); err != nil {
			return nil, fmt.Errorf("cgroup: enable controllers in %s: %w", top, err)
		}
	}
	for _, d := range ds {
		if err := os.MkdirAll(d, 0o755); err != nil {
			g.Remove()
			return nil, fmt.Errorf("cgroup: %w", err)
		}
		g.Dirs = append(g.Dirs, d)
	}
	if err := g.set(l); err != nil {
		g.Remove()
		return nil, err
	}
	return g, nil
}

func (g *Group) set(l Limits) error {
	type setting struct{ controller, v1, v2, value string }
	var s []setting
	if l.Memory > 0 {
		m := strconv.FormatInt(l.Memory, 10)
		s = append(s, setting{"memory", "memory.limit_in_bytes", "memory.max", m})
		// No swap beyond the limit: v1 counts memory+swap together.
		s = append(s, setting{"memory", "memory.memsw.limit_in_bytes", "memory.swap.max", map[bool]string{true: "0", false: m}[g.v2]})
	}
	if l.PIDs > 0 {
		s = append(s, setting{"pids", "pids.max", "pids.max", strconv.FormatInt(l.PIDs, 10)})
	}
	if l.CPUQuota > 0 {
		p := strconv.FormatUint(l.CPUPeriod, 10)
		q := strconv.FormatInt(l.CPUQuota, 10)
		if g.v2 {
			s = append(s, setting{"cpu", "", "cpu.max", q + " " + p})
		} else {
			s = append(s, setting{"cpu", "cpu.cfs_period_us", "", p}, setting{"cpu", "cpu.cfs_quota_us", "", q})
		}
	}
	for _, x := range s {
		dir, file := g.Dirs[0], x.v2
		if !g.v2 {
			dir, file = g.dir(x.controller), x.v1
		}
		err := os.WriteFile(filepath.Join(dir, file), []byte(x.value), 0o644)
		if err != nil && errors.Is(err, os.ErrNotExist) && strings.Contains(file, "sw") {
			continue // no swap accounting on this kernel: there is no swap to limit
		}
		if err != nil {
			return fmt.Errorf("cgroup: set %s = %s: %w", file, x.value, err)
		}
	}
	return nil
}

func (g *Group) dir(controller string) string {
	for _, d := range g.Dirs {
		if filepath.Base(filepath.Dir(filepath.Dir(d))) == controller {
			return d
		}
	}
	return g.Dirs[0]
}

// Procs are the cgroup.procs files a process writes itself into to join.
func (g *Group) Procs() []string {
	out := make([]string, len(g.Dirs))
	for i, d := range g.Dirs {
		out[i] = filepath.Join(d, "cgroup.procs")
	}
	return out
}

// Join moves the calling process into each of procs (what Procs returned).
func Join(procs []string) error {
	for _, p := range procs {
		if err := os.WriteFile(p, []byte("0"), 0o644); err != nil {
			return fmt.Errorf("cgroup: join %s: %w", filepath.Dir(p), err)
		}
	}
	return nil
}

// OOMKills is how many processes the kernel killed for memory in the group.
func (g *Group) OOMKills() int64 {
	file := filepath.Join(g.dir("memory"), "memory.oom_control")
	if g.v2 {
		file = filepath.Join(g.Dirs[0], "memory.events")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "oom_kill" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// Kill SIGKILLs every process in the group until it is empty (or 5 s pass).
func (g *Group) Kill() {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		found := false
		for _, p := range g.Procs() {
			data, _ := os.ReadFile(p)
			for _, f := range strings.Fields(string(data)) {
				if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					found = true
				}
			}
		}
		if !found {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Remove kills what is left in the group and deletes its directories.
func (g *Group) Remove() error {
	g.Kill()
	var errs []error
	for _, d := range g.Dirs {
		var err error
		for i := 0; i < 50; i++ { // the kernel frees a group shortly after its last process
			if err = os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("cgroup: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Open returns the group of id as it is on disk, for garbage collection.
func Open(id string) *Group {
	ds, v2 := dirs(id)
	g := &Group{v2: v2}
	for _, d := range ds {
		if _, err := os.Stat(d); err == nil {
			g.Dirs = append(g.Dirs, d)
		}
	}
	return g
}
