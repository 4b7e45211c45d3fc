//go:build !linux

package landlock

import (
	"context"
	"fmt"

	"github.com/golem-box/golem-box/runner"
)

// Name is the backend's name.
const Name = "landlock"

// Backend is Landlock, which exists only on Linux.
type Backend struct{}

// Option configures New.
type Option func(*Backend)

// WithStateDir is accepted for portability.
func WithStateDir(string) Option { return func(*Backend) {} }

// New returns the stub.
func New(...Option) *Backend { return &Backend{} }

// Name is "landlock".
func (b *Backend) Name() string { return Name }

// Available says Landlock is Linux's.
func (b *Backend) Available(context.Context) error {
	return fmt.Errorf("%w: Landlock exists only on Linux", runner.ErrUnsupported)
}

// Run fails.
func (b *Backend) Run(ctx context.Context, _ *runner.Job) (*runner.Result, error) {
	return nil, b.Available(ctx)
}
