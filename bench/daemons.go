package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/golem-box/golem-box/runner/docker"
)

// benchDaemons times `golem-box run --backend docker|containerd -- true`
// against the daemons' own CLIs running `true` with equivalent isolation
// (no network, the host's /usr and libraries bound read-only into an
// otherwise empty root), alternating round after round.
func benchDaemons(gb string, rounds int) error {
	dir, err := os.MkdirTemp("", "golem-box-bench-daemons-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	proj := filepath.Join(dir, "proj")
	rootfs := filepath.Join(dir, "rootfs")
	for _, d := range []string{proj, rootfs, filepath.Join(rootfs, "usr"), filepath.Join(rootfs, "lib"), filepath.Join(rootfs, "lib64"), filepath.Join(rootfs, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// The first run loads the skeleton image that the raw baseline uses.
	if out, err := exec.Command(gb, "--root", proj, "run", "--backend", "docker", "--", "true").CombinedOutput(); err != nil {
		return fmt.Errorf("golem-box run --backend docker: %v: %s", err, out)
	}
	skel, err := docker.SkeletonTag(nil)
	if err != nil {
		return err
	}
	binds := []string{"/usr", "/lib", "/lib64", "/bin"}
	dockerRaw := []string{"run", "--rm", "--network", "none", "--read-only", "--log-driver", "none"}
	ctrRaw := []string{"-n", "golem-box-bench", "run", "--rm", "--null-io", "--rootfs"}
	for _, b := range binds {
		dockerRaw = append(dockerRaw, "-v", b+":"+b+":ro")
	}
	for _, cs := range []struct {
		name, goal string
		goalRatio  float64
		raw        func(i int) *exec.Cmd
		rawName    string
	}{
		{"docker", "goal <= 0.50x", 0.5, func(int) *exec.Cmd {
			return exec.Command("docker", append(dockerRaw, skel, "true")...)
		}, "docker run --rm --network none"},
		{"containerd", "", 0, func(i int) *exec.Cmd {
			args := append([]string{}, ctrRaw...)
			for _, b := range binds {
				args = append(args[:len(args):len(args)], "--mount", "type=bind,src="+b+",dst="+b+",options=rbind:ro")
			}
			args = append(args, rootfs, "bench-"+strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(i), "/usr/bin/true")
			return exec.Command("ctr", args...)
		}, "ctr run --rm"},
	} {
		boxed := func(int) *exec.Cmd {
			return exec.Command(gb, "--root", proj, "run", "--backend", cs.name, "--", "true")
		}
		var tr, tb []time.Duration
		for i := 0; i < rounds; i++ {
			for _, m := range []struct {
				cmd func(int) *exec.Cmd
				out *[]time.Duration
			}{{cs.raw, &tr}, {boxed, &tb}} {
				c := m.cmd(i)
				var out bytes.Buffer
				c.Stdout, c.Stderr = &out, &out
				t0 := time.Now()
				if err := c.Run(); err != nil {
					return fmt.Errorf("%s: %v: %s", c.String(), err, out.Bytes())
				}
				*m.out = append(*m.out, time.Since(t0))
			}
		}
		r, g := median(tr), median(tb)
		ratio := float64(g) / float64(r)
		goal := ""
		if cs.goal != "" {
			goal = fmt.Sprintf("  %s  %s", cs.goal, verdict(ratio <= cs.goalRatio))
		}
		fmt.Printf("run -- true on %-10s golem-box %v / %s %v = %.2fx%s\n", cs.name, g.Round(time.Microsecond), cs.rawName, r.Round(time.Microsecond), ratio, goal)
	}
	return nil
}
