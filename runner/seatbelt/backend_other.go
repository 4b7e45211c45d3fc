//go:build !darwin

package seatbelt

import (
	"context"
	"fmt"

	"github.com/golem-box/golem-box/runner"
)

// Backend is Seatbelt, which exists only on macOS.
type Backend struct{}

// New returns the stub.
func New() *Backend { return &Backend{} }

// Name is "seatbelt".
func (b *Backend) Name() string { return Name }

// Available says Seatbelt is macOS's.
func (b *Backend) Available(context.Context) error {
	return fmt.Errorf("%w: Seatbelt (sandbox-exec) exists only on macOS", runner.ErrUnsupported)
}

// Run fails.
func (b *Backend) Run(ctx context.Context, _ *runner.Job) (*runner.Result, error) {
	return nil, b.Available(ctx)
}
