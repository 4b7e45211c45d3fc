package cgroup

import (
	"errors"
	"fmt"

	"github.com/golem-box/golem-box/runner/runstate"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// ErrUnsupported is a limit the configuration asks for that no control
// group can enforce here.
var ErrUnsupported = errors.New("cannot be enforced")

// ForRun creates the group of run id with the limits of a compiled spec.
// Where groups cannot be made, asked limits (asked is true when the
// configuration sets any) are an error; golem-box's defaults alone are left
// unenforced, and the group is nil.
func ForRun(id string, r *specs.LinuxResources, asked bool) (*Group, error) {
	l := Limits{}
	if r != nil {
		if r.Memory != nil && r.Memory.Limit != nil {
			l.Memory = *r.Memory.Limit
		}
		if r.Pids != nil && r.Pids.Limit != nil {
			l.PIDs = *r.Pids.Limit
		}
		if r.CPU != nil && r.CPU.Quota != nil && r.CPU.Period != nil {
			l.CPUQuota, l.CPUPeriod = *r.CPU.Quota, *r.CPU.Period
		}
	}
	if err := Writable(); err != nil {
		if asked {
			return nil, fmt.Errorf("limits: %w: %v", ErrUnsupported, err)
		}
		return nil, nil
	}
	return Create(id, l)
}

// GC removes the state directories and control groups of the runs in
// bundles whose golem-box is gone, and returns their ids: the collector of
// the backends that keep nothing else (bwrap, Landlock).
func GC(bundles runstate.Bundles) ([]string, error) {
	ids, err := bundles.Leftovers()
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, id := range ids {
		errs = append(errs, Open(id).Remove(), bundles.Remove(id))
	}
	return ids, errors.Join(errs...)
}
