package bwrap

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golem-box/golem-box/mountspec"
	compile "github.com/golem-box/golem-box/oci"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixedHost and fixedKind make the golden files independent of the machine.
var fixedHost = &compile.HostImage{Dirs: []string{"/usr", "/bin", "/lib", "/lib64"}, Etc: []string{"/etc/ld.so.cache"}}

func fixedKind(p string) (bool, bool) {
	switch p {
	case "/proc/acpi", "/proc/scsi", "/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys":
		return true, true
	case "/proc/timer_stats", "/proc/sched_debug":
		return false, false
	}
	return true, false
}

func compileFixture(t *testing.T, sb *mountspec.Sandbox, o compile.Options) *compile.Bundle {
	t.Helper()
	require.NoError(t, sb.Validate())
	o.UID, o.GID, o.BundleDir, o.ID, o.Host = 1000, 1000, "/run/golem-box/bwrap/golden", "golden", fixedHost
	o.Features = compile.Features{RecursiveReadOnly: true, Runtime: "bwrap"}
	if o.Args == nil {
		o.Args = []string{"/bin/sh", "-c", "echo hi"}
	}
	b, err := compile.Compile(context.Background(), sb, o)
	require.NoError(t, err)
	return b
}

// render puts each flag and its operands on a line of their own.
func render(args []string, td string) string {
	var b strings.Builder
	for i, a := range args {
		a = strings.ReplaceAll(a, td, "$TESTDATA")
		switch {
		case i > 0 && (strings.HasPrefix(a, "--") || args[i-1] == "--"):
			b.WriteString("\n")
		case i > 0:
			b.WriteString(" ")
		}
		if strings.ContainsAny(a, " \t\n\"'") || a == "" {
			a = `"` + strings.ReplaceAll(a, `"`, `\"`) + `"`
		}
		b.WriteString(a)
	}
	return b.String() + "\n"
}

// TestGoldenArgs compares bwrap's command line for each case with
// testdata/*.args; refresh with go test ./runner/bwrap -update.
func TestGoldenArgs(t *testing.T) {
	td, err := filepath.Abs("testdata/fixture")
	require.NoError(t, err)
	for name, c := range map[string]struct {
		sb *mountspec.Sandbox
		o  compile.Options
	}{
		"default": {sb: &mountspec.Sandbox{Root: td + "/project", Mounts: []mountspec.Mount{
			{Source: td + "/cache", Target: "/cache", ReadOnly: true}, {Source: td + "/out", Target: "/out"}}}},
		"network-readonly-env": {sb: &mountspec.Sandbox{Root: td + "/project", ReadOnly: true, Network: mountspec.Network{Enabled: true}},
			o: compile.Options{Env: []string{"LANG=C.UTF-8", "GREETING=hello world"}, Workdir: "/src"}},
		"image-none": {sb: &mountspec.Sandbox{Root: td + "/project", Image: compile.ImageNone}},
	} {
		t.Run(name, func(t *testing.T) {
			if name == "image-none" {
				for _, d := range []string{"proc", "dev", "sys", "tmp"} {
					require.NoError(t, os.MkdirAll(filepath.Join(td, "project", d), 0o755))
					defer os.Remove(filepath.Join(td, "project", d))
				}
			}
			b := compileFixture(t, c.sb, c.o)
			args, err := Args(b, FDs{Seccomp: 5, Status: 6}, fixedKind)
			require.NoError(t, err)
			got := render(args, td)
			golden := filepath.Join("testdata", name+".args")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./runner/bwrap -update writes it")
			assert.Equal(t, string(want), got)
		})
	}
}

// TestArgsHardening checks the flags that make the sandbox a sandbox,
// whatever the golden files say.
func TestArgsHardening(t *testing.T) {
	td, err := filepath.Abs("testdata/fixture")
	require.NoError(t, err)
	b := compileFixture(t, &mountspec.Sandbox{Root: td + "/project"}, compile.Options{})
	args, err := Args(b, FDs{Seccomp: 5, Status: 6}, fixedKind)
	require.NoError(t, err)
	line := strings.Join(args, " ")
	for _, want := range []string{"--die-with-parent", "--new-session", "--cap-drop ALL", "--unshare-user", "--unshare-pid",
		"--unshare-ipc", "--unshare-uts", "--unshare-cgroup", "--unshare-net", "--disable-userns", "--seccomp 5",
		"--proc /proc", "--dev /dev", "--clearenv", "--remount-ro /"} {
		assert.Contains(t, line, want)
	}
	assert.NotContains(t, line, "--share-net")
	assert.NotContains(t, line, " /sys", "no /sys in a bwrap sandbox")

	b = compileFixture(t, &mountspec.Sandbox{Root: td + "/project", Network: mountspec.Network{Enabled: true}}, compile.Options{})
	args, err = Args(b, FDs{Seccomp: 5, Status: 6}, fixedKind)
	require.NoError(t, err)
	assert.NotContains(t, strings.Join(args, " "), "--unshare-net", "the network is on")
}

// TestArgsRefuseWhatBwrapCannotDo: a spec entry with no bwrap flag is an
// error, never dropped.
func TestArgsRefuseWhatBwrapCannotDo(t *testing.T) {
	td, err := filepath.Abs("testdata/fixture")
	require.NoError(t, err)
	for name, mutate := range map[string]func(s *specs.Spec){
		"an overlay mount":    func(s *specs.Spec) { s.Mounts = append(s.Mounts, specs.Mount{Type: "overlay", Destination: "/x"}) },
		"joining a namespace": func(s *specs.Spec) { s.Linux.Namespaces[0].Path = "/proc/1/ns/pid" },
		"sharing the pid ns":  func(s *specs.Spec) { s.Linux.Namespaces = s.Linux.Namespaces[1:] },
		"a capability":        func(s *specs.Spec) { s.Process.Capabilities.Bounding = []string{"CAP_NET_RAW"} },
	} {
		t.Run(name, func(t *testing.T) {
			b := compileFixture(t, &mountspec.Sandbox{Root: td + "/project"}, compile.Options{})
			mutate(b.Spec)
			_, err := Args(b, FDs{Seccomp: 5, Status: 6}, fixedKind)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrUnsupported), "%v", err)
		})
	}
}
