//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/runner/bwrap"
	"github.com/golem-box/golem-box/runner/landlock"
	"github.com/golem-box/golem-box/seccomp"
)

// benchOSSandboxes times cold `golem-box run --backend bwrap -- true`
// against raw bwrap with the same arguments (the same binds, masks and
// seccomp filter), and `--backend landlock` against a bare fork and exec
// of true, alternating round after round.
func benchOSSandboxes(gb string, rounds int) error {
	dir, err := os.MkdirTemp("", "golem-box-bench-os-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, "src"), 0o755); err != nil {
		return err
	}
	sb := &mountspec.Sandbox{Root: proj}
	if err := sb.Validate(); err != nil {
		return err
	}
	bw := bwrap.New(bwrap.WithStateDir(filepath.Join(dir, "state")))
	if err := bw.Available(context.Background()); err != nil {
		return err
	}
	// The raw baseline: bwrap's arguments as golem-box computes them, with
	// the filter in a file and the status going nowhere.
	bundle := filepath.Join(dir, "bundle")
	job := &runner.Job{Sandbox: sb, Args: []string{"true"}}
	cb, err := bw.Compile(context.Background(), job, bundle, "bench")
	if err != nil {
		return err
	}
	if err := cb.Write(bundle); err != nil {
		return err
	}
	args, err := bwrap.Args(cb, bwrap.FDs{Seccomp: 3, Status: 4}, bwrap.HostKind)
	if err != nil {
		return err
	}
	data, err := seccomp.Program(cb.Spec.Linux.Seccomp, seccomp.DenyTerminalInjection()...)
	if err != nil {
		return err
	}
	filter := filepath.Join(dir, "filter.bpf")
	if err := os.WriteFile(filter, data, 0o600); err != nil {
		return err
	}
	bwrapPath, err := exec.LookPath("bwrap")
	if err != nil {
		return err
	}
	raw := func() *exec.Cmd {
		f, _ := os.Open(filter)
		null, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		c := exec.Command(bwrapPath, args...)
		c.ExtraFiles = []*os.File{f, null}
		return c
	}
	boxed := func(backend string) func() *exec.Cmd {
		return func() *exec.Cmd { return exec.Command(gb, "--root", proj, "run", "--backend", backend, "--", "true") }
	}
	bare := func() *exec.Cmd { return exec.Command("true") }
	ll := landlock.New(landlock.WithStateDir(filepath.Join(dir, "state")))
	timings := map[string][]time.Duration{}
	for i := 0; i < rounds; i++ {
		for _, m := range []struct {
			name string
			cmd  func() *exec.Cmd
		}{{"raw", raw}, {"bwrap", boxed("bwrap")}, {"bare", bare}, {"landlock", boxed("landlock")}} {
			c := m.cmd()
			var out bytes.Buffer
			c.Stdout, c.Stderr = &out, &out
			t0 := time.Now()
			if err := c.Run(); err != nil {
				return fmt.Errorf("%s: %v: %s", c.String(), err, out.Bytes())
			}
			timings[m.name] = append(timings[m.name], time.Since(t0))
		}
		for name, b := range map[string]runner.Backend{"bwrap-lib": bw, "landlock-lib": ll} {
			t0 := time.Now()
			res, err := b.Run(context.Background(), job)
			if err != nil || res.ExitCode != 0 {
				return fmt.Errorf("library run on %s: %v %+v", name, err, res)
			}
			timings[name] = append(timings[name], time.Since(t0))
		}
	}
	m := func(n string) time.Duration { return median(timings[n]) }
	r := float64(m("bwrap")) / float64(m("raw"))
	fmt.Printf("run -- true on bwrap     golem-box %v / raw bwrap (same arguments) %v = %.2fx  goal <= 1.20x  %s\n",
		m("bwrap").Round(time.Microsecond), m("raw").Round(time.Microsecond), r, verdict(r <= 1.2))
	fmt.Printf("  the same through the library (Backend.Run, in process): %v = %.2fx\n", m("bwrap-lib").Round(time.Microsecond), float64(m("bwrap-lib"))/float64(m("raw")))
	l := float64(m("landlock")) / float64(m("bare"))
	fmt.Printf("run -- true on landlock  golem-box %v / fork+exec of true %v = %.2fx  goal < 2x  %s\n",
		m("landlock").Round(time.Microsecond), m("bare").Round(time.Microsecond), l, verdict(l < 2))
	fmt.Printf("  the same through the library (Backend.Run, in process): %v = %.2fx\n", m("landlock-lib").Round(time.Microsecond), float64(m("landlock-lib"))/float64(m("bare")))
	return nil
}
