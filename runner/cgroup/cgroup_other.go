//go:build !linux

package cgroup

import "errors"

var errNoCgroups = errors.New("control groups exist only on Linux")

// Limits are what a group enforces; zero leaves a limit unset.
type Limits struct {
	Memory    int64
	PIDs      int64
	CPUQuota  int64
	CPUPeriod uint64
}

// Group is one run's control group.
type Group struct{ Dirs []string }

// Unified says whether the host uses the v2 tree only.
func Unified() bool { return false }

// Writable says control groups cannot be made here.
func Writable() error { return errNoCgroups }

// Create fails: there are no control groups here.
func Create(string, Limits) (*Group, error) { return nil, errNoCgroups }

// Procs is empty.
func (g *Group) Procs() []string { return nil }

// Join fails unless there is nothing to join.
func Join(procs []string) error {
	if len(procs) > 0 {
		return errNoCgroups
	}
	return nil
}

// OOMKills is zero.
func (g *Group) OOMKills() int64 { return 0 }

// Kill does nothing.
func (g *Group) Kill() {}

// Remove does nothing.
func (g *Group) Remove() error { return nil }

// Open returns an empty group.
func Open(string) *Group { return &Group{} }
