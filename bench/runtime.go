package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/oci"
	"github.com/golem-box/golem-box/runner"
	runneroci "github.com/golem-box/golem-box/runner/oci"
)

// benchRuntimes times `golem-box run --runtime RT -- true` against the raw
// runtime running an equivalent bundle (compiled once by oci.Compile), the
// two alternating round after round.
func benchRuntimes(gb string, rounds int) error {
	dir, err := os.MkdirTemp("", "golem-box-bench-rt-")
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
	for _, rt := range []string{"crun", "runc"} {
		path, err := exec.LookPath(rt)
		if err != nil {
			fmt.Printf("%-24s skipped: %s not installed (make setup installs it)\n", rt, rt)
			continue
		}
		bundle := filepath.Join(dir, "bundle-"+rt)
		b, err := oci.Compile(context.Background(), sb, oci.Options{Args: []string{"true"}, UID: uint32(os.Getuid()), GID: uint32(os.Getgid()),
			BundleDir: bundle, ID: "bench", Features: oci.Features{RecursiveReadOnly: rt == "runc"}})
		if err != nil {
			return err
		}
		if err := b.Write(bundle); err != nil {
			return err
		}
		state := filepath.Join(dir, "state-"+rt)
		// crun refuses hybrid cgroups: the raw baseline starts it from the
		// same private mount namespace golem-box uses, with no extra process.
		starter := runneroci.New(runneroci.WithRuntime(path), runneroci.WithStateDir(filepath.Join(dir, "unused")))
		raw := func(i int) *exec.Cmd {
			return exec.Command(path, "--root", state, "run", "--bundle", bundle, "raw-"+strconv.Itoa(i))
		}
		boxed := func(int) *exec.Cmd {
			return exec.Command(gb, "--root", proj, "run", "--runtime", rt, "--", "true")
		}
		lib := runneroci.New(runneroci.WithRuntime(path), runneroci.WithStateDir(filepath.Join(dir, "lib-"+rt)))
		var tr, tb, tl []time.Duration
		for i := 0; i < rounds; i++ {
			// The library, in process: what an agent embedding golem-box pays.
			t0 := time.Now()
			res, err := lib.Run(context.Background(), &runner.Job{Sandbox: sb, Args: []string{"true"}})
			if err != nil || res.ExitCode != 0 {
				return fmt.Errorf("library run on %s: %v %+v", rt, err, res)
			}
			tl = append(tl, time.Since(t0))
			for _, m := range []struct {
				cmd func(int) *exec.Cmd
				out *[]time.Duration
			}{{raw, &tr}, {boxed, &tb}} {
				c := m.cmd(i)
				var out bytes.Buffer
				c.Stdout, c.Stderr = &out, &out
				t0 := time.Now()
				err := starter.StartRuntime(c)
				if err == nil {
					err = c.Wait()
				}
				if err != nil {
					return fmt.Errorf("%s: %v: %s", c.String(), err, out.Bytes())
				}
				*m.out = append(*m.out, time.Since(t0))
			}
		}
		r, g, l := median(tr), median(tb), median(tl)
		ratio := float64(g) / float64(r)
		goal := ""
		if rt == "crun" {
			goal = fmt.Sprintf("  goal <= 1.20x  %s", verdict(ratio <= 1.2))
		}
		note := ""
		if rt == "crun" && runneroci.HybridCgroups() {
			note = " (hybrid cgroups: both started from a private mount namespace)"
		}
		fmt.Printf("run -- true on %-9s golem-box %v / raw %s run %v = %.2fx%s%s\n", rt, g.Round(time.Microsecond), rt, r.Round(time.Microsecond), ratio, goal, note)
		fmt.Printf("  the same through the library (Backend.Run, in process): %v = %.2fx\n", l.Round(time.Microsecond), float64(l)/float64(r))
	}
	return nil
}
