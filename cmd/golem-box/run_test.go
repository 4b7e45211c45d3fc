package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunInContainer(t *testing.T) {
	home := seedTree(t)
	t.Setenv("GOLEM_BOX_STATE_DIR", t.TempDir())
	flags := []string{"--root", filepath.Join(home, "project"), "-v", filepath.Join(home, ".cache") + ":/cache:ro"}
	for _, rt := range []string{"runc", "crun"} {
		t.Run(rt, func(t *testing.T) {
			r := gb(t, home, "", append(flags, "run", "--runtime", rt, "--", "sh", "-c", "cat /src/app.ts; echo x > /cache/f; exit 3")...)
			assert.Equal(t, 3, r.code, "the command's status passes through")
			assert.Equal(t, "export {}\n", r.stdout)
			assert.Contains(t, r.stderr, "Read-only file system")
			assert.NoFileExists(t, filepath.Join(home, ".cache/f"))

			r = gb(t, home, "", append(flags, "run", "--runtime", rt, "--timeout", "1s", "--", "sleep", "30")...)
			assert.Equal(t, 137, r.code)
			assert.Contains(t, r.stderr, "ended by timeout")

			r = gb(t, home, "", append(flags, "-o", "json", "run", "--runtime", rt, "--", "true")...)
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, `"reason": "exit"`)
		})
	}
	r := gb(t, home, "", append(flags, "compile", "--", "true")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"ociVersion": "1.0.2-dev"`)
	assert.Contains(t, r.stdout, filepath.Join(home, "project/src"))
	r = gb(t, home, "", append(flags, "run", "--workdir", "/proc/self/fd/3", "--", "true")...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "CVE-2024-21626")
	r = gb(t, home, "", append(flags, "run")...)
	assert.Equal(t, 2, r.code)
}

// leftovers is what a backend may leave behind: where its bundles live
// and how many containers (tasks, leases) it still has.
type leftovers struct {
	name    string
	flags   []string
	bundles string // under the state directory
	count   func(state string) int
}

var backendsUnderTest = []leftovers{
	{"runc", []string{"--runtime", "runc"}, "bundles", func(state string) int { return running("runc", state) }},
	{"crun", []string{"--runtime", "crun"}, "bundles", func(state string) int { return running("crun", state) }},
	{"docker", []string{"--backend", "docker"}, "docker", func(string) int {
		return lines("docker", "ps", "-aq", "--filter", "label=io.golem-box.run")
	}},
	{"containerd", []string{"--backend", "containerd"}, "containerd", func(string) int {
		return lines("ctr", "-n", "golem-box", "containers", "ls", "-q") + lines("ctr", "-n", "golem-box", "tasks", "ls", "-q") +
			lines("ctr", "-n", "golem-box", "leases", "ls", "-q")
	}},
}

func lines(name string, args ...string) int {
	out, _ := exec.Command(name, args...).Output()
	return len(strings.Fields(string(out)))
}

// TestSIGKILLThenGC kills golem-box run in the middle of a run on each
// backend; gc must then leave no container, task, lease, bundle or
// process behind.
func TestSIGKILLThenGC(t *testing.T) {
	for _, be := range backendsUnderTest {
		t.Run(be.name, func(t *testing.T) {
			home := seedTree(t)
			state := t.TempDir()
			t.Setenv("GOLEM_BOX_STATE_DIR", state)
			marker := "golem-sigkill-" + be.name + "-" + filepath.Base(home)
			args := append([]string{"--root", filepath.Join(home, "project"), "run"}, be.flags...)
			cmd := exec.Command(binary, append(args, "--", "sh", "-c", "echo "+marker+" >/dev/null; sleep 300")...)
			cmd.Dir = home
			base := be.count(state)
			require.NoError(t, cmd.Start())
			bundles := filepath.Join(state, be.bundles)
			// Running: the bundle is there and the command's shell (not
			// golem-box, whose arguments hold the marker too) is alive.
			require.Eventually(t, func() bool {
				des, _ := os.ReadDir(bundles)
				return len(des) == 1 && be.count(state) > base && shells(marker) > 0
			}, 30*time.Second, 50*time.Millisecond, "the run must start")
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			_ = cmd.Wait()
			des, _ := os.ReadDir(bundles)
			require.Len(t, des, 1, "a killed run leaves its bundle: gc is needed")
			require.Greater(t, be.count(state), base, "a killed run leaves its container")

			r := gb(t, home, "", "gc")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "removed gb-")
			des, _ = os.ReadDir(bundles)
			assert.Empty(t, des, "no bundle left")
			assert.Equal(t, base, be.count(state), "gc removed the container")
			assert.Eventually(t, func() bool { return !sleeping(marker) }, 10*time.Second, 100*time.Millisecond, "no process left")
		})
	}
}

// running counts the containers the runtime knows in golem-box's state.
func running(rt, state string) int {
	out, _ := exec.Command(rt, "--root", filepath.Join(state, "runtime", rt), "list", "-q").Output()
	return len(strings.Fields(string(out)))
}

// sleeping reports whether any process with the marker in its command
// line is still alive.
func sleeping(marker string) bool {
	out, _ := exec.Command("pgrep", "-f", marker).Output()
	return strings.TrimSpace(string(out)) != ""
}

// shells counts the command's shells ("sh -c 'echo MARKER ...'").
func shells(marker string) int {
	return lines("pgrep", "-f", "^sh -c echo "+marker)
}

// TestSIGTERMCleansUp: a terminated golem-box kills its container and
// removes its bundle before it exits; no gc needed. The signal comes once
// the container runs, and also at once, while the runtime is still
// creating it.
func TestSIGTERMCleansUp(t *testing.T) {
	for _, be := range backendsUnderTest {
		for _, early := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/early=%v", be.name, early), func(t *testing.T) {
				home := seedTree(t)
				state := t.TempDir()
				t.Setenv("GOLEM_BOX_STATE_DIR", state)
				marker := "golem-sigterm-" + be.name + "-" + filepath.Base(home)
				args := append([]string{"--root", filepath.Join(home, "project"), "run"}, be.flags...)
				base := be.count(state)
				cmd := exec.Command(binary, append(args, "--", "sh", "-c", "echo "+marker+" >/dev/null; sleep 300")...)
				cmd.Dir = home
				require.NoError(t, cmd.Start())
				bundles := filepath.Join(state, be.bundles)
				if early {
					// The bundle exists: golem-box handles signals and the
					// runtime or daemon is creating the container, or about to.
					require.Eventually(t, func() bool {
						des, _ := os.ReadDir(bundles)
						return len(des) == 1
					}, 20*time.Second, time.Millisecond)
				} else {
					require.Eventually(t, func() bool { return shells(marker) > 0 }, 20*time.Second, 50*time.Millisecond)
				}
				start := time.Now()
				require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
				err := cmd.Wait()
				assert.Less(t, time.Since(start), 15*time.Second, "golem-box must not wait for the command")
				var ee *exec.ExitError
				require.ErrorAs(t, err, &ee)
				assert.NotEqual(t, 0, ee.ExitCode())
				des, _ := os.ReadDir(bundles)
				assert.Empty(t, des, "the bundle is removed")
				assert.Equal(t, base, be.count(state), "no container left")
				assert.Eventually(t, func() bool { return !sleeping(marker) }, 10*time.Second, 100*time.Millisecond, "no process left")
			})
		}
	}
}

func TestImageBuildAndRun(t *testing.T) {
	home := seedTree(t)
	t.Setenv("GOLEM_BOX_STATE_DIR", t.TempDir())
	t.Setenv("GOLEM_BOX_IMAGES", t.TempDir())
	r := gb(t, home, "", "image", "build", "--from-host", "--name", "mini:1", "sh", "cat", "ls")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "mini:1")
	r = gb(t, home, "", "image", "ls")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "from-host sh cat ls")

	// The cached image is the OS on every container backend.
	for _, backend := range []string{"oci", "docker", "containerd"} {
		r = gb(t, home, "", "--root", "project", "run", "--backend", backend, "--image", "mini:1", "--", "sh", "-c", "ls /usr/bin; cat /src/app.ts; ls /usr/lib/python3 2>&1 || true")
		require.Equal(t, 0, r.code, "%s: %s", backend, r.stderr)
		lines := strings.Split(r.stdout, "\n")
		require.GreaterOrEqual(t, len(lines), 5, r.stdout)
		assert.Equal(t, []string{"cat", "ls", "sh", "export {}"}, lines[:4], "%s: only the image's binaries, and the sandbox's files", backend)
		assert.Contains(t, r.stdout, "No such file", "%s: nothing else of the host", backend)
	}

	r = gb(t, home, "", "--root", "project", "run", "--image", "nope:1", "--", "true")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "image not found")
	r = gb(t, home, "", "image", "rm", "mini:1")
	require.Equal(t, 0, r.code, r.stderr)
	r = gb(t, home, "", "image", "build", "sh")
	assert.Equal(t, 2, r.code, "golem-box never pulls: only --from-host builds")
}
