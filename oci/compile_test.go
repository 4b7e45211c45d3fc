package oci

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containerd/containerd/v2/contrib/seccomp"
	"github.com/golem-box/golem-box/mountspec"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/opencontainers/runtime-tools/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xeipuuv/gojsonschema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func testdata(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs("testdata")
	require.NoError(t, err)
	return d
}

// fixedHost makes the golden files independent of the machine.
var fixedHost = &HostImage{Dirs: []string{"/usr", "/bin", "/sbin", "/lib", "/lib64"}, Etc: []string{"/etc/ld.so.cache", "/etc/alternatives"}}

type compileCase struct {
	name string
	sb   func(td string) *mountspec.Sandbox
	opt  func(o *Options)
}

var cases = []compileCase{
	{name: "default", sb: func(td string) *mountspec.Sandbox {
		return &mountspec.Sandbox{Root: td + "/project", Mounts: []mountspec.Mount{
			{Source: td + "/cache", Target: "/cache", ReadOnly: true},
			{Source: td + "/out", Target: "/out"},
		}}
	}},
	{name: "network-limits-env", sb: func(td string) *mountspec.Sandbox {
		return &mountspec.Sandbox{Root: td + "/project", ReadOnly: true, Network: mountspec.Network{Enabled: true},
			Limits: mountspec.Limits{Memory: 256 << 20, PIDs: 64, CPUs: 1.5}}
	}, opt: func(o *Options) { o.Env = []string{"LANG=C.UTF-8", "HOME=/out"}; o.Workdir = "/src" }},
	{name: "no-rro", sb: func(td string) *mountspec.Sandbox {
		return &mountspec.Sandbox{Mounts: []mountspec.Mount{{Source: td + "/cache", Target: "/data/in", ReadOnly: true},
			{Source: td + "/out", Target: "/data/out"}}}
	}, opt: func(o *Options) { o.Features = Features{Runtime: "crun"} }},
	{name: "image-none", sb: func(td string) *mountspec.Sandbox {
		return &mountspec.Sandbox{Root: td + "/rootfs", Image: ImageNone, Mounts: []mountspec.Mount{{Source: td + "/cache", Target: "/data", ReadOnly: true}}}
	}},
}

func compileCaseSpec(t *testing.T, c compileCase, bundle string) *Bundle {
	t.Helper()
	sb := c.sb(testdata(t))
	require.NoError(t, sb.Validate())
	o := Options{Args: []string{"/bin/sh", "-c", "echo hi"}, UID: 1000, GID: 1000, BundleDir: bundle, ID: "golden",
		Features: Features{RecursiveReadOnly: true, Runtime: "runc"}, Host: fixedHost}
	if c.opt != nil {
		c.opt(&o)
	}
	b, err := Compile(context.Background(), sb, o)
	require.NoError(t, err)
	return b
}

// TestGolden compares each compiled config.json with oci/testdata; refresh
// with go test ./oci -update and review the diff like code.
func TestGolden(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := compileCaseSpec(t, c, "/run/golem-box/bundles/golden")
			// The seccomp profile is containerd's and depends on the kernel
			// version: checked below, not frozen in the golden file.
			prof := b.Spec.Linux.Seccomp
			require.NotNil(t, prof)
			assert.Equal(t, specs.ActErrno, prof.DefaultAction)
			b.Spec.Linux.Seccomp = nil
			data, err := b.JSON()
			require.NoError(t, err)
			extra, _ := json.MarshalIndent(map[string]any{"symlinks": b.Symlinks, "etc": b.EtcFiles, "hidden": b.Hidden, "rootfs_link": b.RootfsLink}, "", "\t")
			got := strings.ReplaceAll(string(data)+string(extra)+"\n", testdata(t), "$TESTDATA")
			golden := filepath.Join("testdata", "golden", c.name+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./oci -update to create it")
			assert.Equal(t, string(want), got)
		})
	}
}

func TestSeccompIsContainerdsMinusPtrace(t *testing.T) {
	b := compileCaseSpec(t, cases[0], "/run/golem-box/bundles/x")
	allowed := map[string]bool{}
	for _, r := range b.Spec.Linux.Seccomp.Syscalls {
		if r.Action == specs.ActAllow {
			for _, n := range r.Names {
				allowed[n] = true
			}
		}
	}
	for _, n := range []string{"ptrace", "process_vm_readv", "process_vm_writev", "mount", "unshare", "keyctl", "add_key", "bpf", "setns", "open_by_handle_at"} {
		assert.False(t, allowed[n], "%s must not be allowed", n)
	}
	ref := seccomp.DefaultProfile(b.Spec)
	for _, r := range ref.Syscalls {
		for _, n := range r.Names {
			if r.Action == specs.ActAllow && len(r.Args) == 0 && !strings.HasPrefix(n, "process_vm") && n != "ptrace" {
				assert.True(t, allowed[n], "%s is allowed by containerd's profile and must stay allowed", n)
			}
		}
	}
}

// TestSpecsValidate runs the OCI validator of runtime-tools and the
// runtime-spec JSON schema (from the module, offline) on every case.
func TestSpecsValidate(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/opencontainers/runtime-spec").Output()
	require.NoError(t, err)
	schema := "file://" + filepath.Join(strings.TrimSpace(string(out)), "schema", "config-schema.json")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			b := compileCaseSpec(t, c, dir)
			require.NoError(t, b.Write(dir))
			// The spec declares 1.0.2-dev for the runtimes of Debian 12 and
			// uses nothing newer: validate its content as the validator's
			// own version.
			s := *b.Spec
			s.Version = specs.Version
			v, err := validate.NewValidator(&s, dir, false, "linux")
			require.NoError(t, err)
			for name, check := range map[string]func() error{
				"platform": v.CheckPlatform, "root": v.CheckRoot, "mandatory": v.CheckMandatoryFields,
				"semver": v.CheckSemVer, "mounts": v.CheckMounts, "process": v.CheckProcess,
				"linux": v.CheckLinux, "annotations": v.CheckAnnotations, "hooks": v.CheckHooks,
			} {
				err := check()
				if me, ok := err.(interface{ ErrorOrNil() error }); ok {
					err = me.ErrorOrNil() // runtime-tools returns empty multierrors
				}
				assert.NoError(t, err, name)
			}
			res, err := gojsonschema.Validate(gojsonschema.NewReferenceLoader(schema), gojsonschema.NewGoLoader(b.Spec))
			require.NoError(t, err)
			for _, e := range res.Errors() {
				t.Errorf("schema: %s", e)
			}
		})
	}
}

func TestLayout(t *testing.T) {
	td := testdata(t)
	b := compileCaseSpec(t, cases[0], "/b")
	assert.Equal(t, map[string]string{"latest": "src"}, b.Symlinks, "a top-level link is recreated, never bound")
	assert.Equal(t, []string{"/etc", "/lib"}, b.Hidden, "root entries hidden by the image's OS paths")
	assert.Equal(t, b.Hidden, HiddenByImage(&mountspec.Sandbox{Root: td + "/project"}), "check reports what Compile hides")
	dest := map[string]specs.Mount{}
	for _, m := range b.Spec.Mounts {
		dest[m.Destination] = m
	}
	assert.Equal(t, td+"/project/src", dest["/src"].Source, "paths are paths")
	assert.Equal(t, td+"/project/notes.txt", dest["/notes.txt"].Source)
	assert.Contains(t, dest["/cache"].Options, "rro")
	assert.NotContains(t, dest["/out"].Options, "rro")
	for _, o := range []string{"rbind", "nosuid", "nodev", "rprivate"} {
		assert.Contains(t, dest["/out"].Options, o)
	}
	_, leaked := dest["/latest"]
	assert.False(t, leaked)
	assert.True(t, b.Spec.Root.Readonly)
	assert.Equal(t, []string{}, b.Spec.Process.Capabilities.Effective)
	assert.True(t, b.Spec.Process.NoNewPrivileges)
	var hasNet bool
	for _, ns := range b.Spec.Linux.Namespaces {
		hasNet = hasNet || ns.Type == specs.NetworkNamespace
	}
	assert.True(t, hasNet, "network off means a network namespace of its own")
}

func TestCompileRefusals(t *testing.T) {
	td := testdata(t)
	base := func() *mountspec.Sandbox {
		return &mountspec.Sandbox{Root: td + "/project"}
	}
	opts := Options{Args: []string{"true"}, BundleDir: "/b", Host: fixedHost, Features: Features{RecursiveReadOnly: true}}
	for _, tc := range []struct {
		name string
		edit func(*mountspec.Sandbox, *Options)
		want string
	}{
		{"workdir in /proc/self/fd", func(_ *mountspec.Sandbox, o *Options) { o.Workdir = "/proc/self/fd/7" }, "CVE-2024-21626"},
		{"workdir in /proc/1/cwd", func(_ *mountspec.Sandbox, o *Options) { o.Workdir = "/proc/1/cwd" }, "CVE-2024-21626"},
		{"relative workdir", func(_ *mountspec.Sandbox, o *Options) { o.Workdir = "src" }, "absolute"},
		{"bad env", func(_ *mountspec.Sandbox, o *Options) { o.Env = []string{"=x"} }, "KEY=VALUE"},
		{"allow-list", func(s *mountspec.Sandbox, _ *Options) {
			s.Network = mountspec.Network{Enabled: true, Allow: []string{"a.b"}}
		}, "network.allow"},
		{"unknown image", func(s *mountspec.Sandbox, _ *Options) { s.Image = "alpine:3" }, `image "alpine:3"`},
		{"mount under the OS", func(s *mountspec.Sandbox, _ *Options) {
			s.Mounts = []mountspec.Mount{{Source: td + "/cache", Target: "/usr/local/cache"}}
		}, "/usr belongs to the image"},
		{"missing nested mount point", func(s *mountspec.Sandbox, _ *Options) {
			s.Mounts = []mountspec.Mount{{Source: td + "/cache", Target: "/src/vendor"}}
		}, "mkdir " + td + "/project/src/vendor"},
		{"mount through a root link", func(s *mountspec.Sandbox, _ *Options) {
			s.Mounts = []mountspec.Mount{{Source: td + "/cache", Target: "/latest/x"}}
		}, "symbolic link"},
		{"image none without mount point", func(s *mountspec.Sandbox, _ *Options) {
			s.Root, s.Image = td+"/rootfs", ImageNone
			s.Mounts = []mountspec.Mount{{Source: td + "/cache", Target: "/missing"}}
		}, "does not exist"},
		{"no command", func(_ *mountspec.Sandbox, o *Options) { o.Args = nil }, "no command"},
		{"image none without /proc", func(s *mountspec.Sandbox, _ *Options) { s.Image = ImageNone }, "has no directory /proc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb, o := base(), opts
			tc.edit(sb, &o)
			_, err := Compile(context.Background(), sb, o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestReadOnlyWithoutRROAndSubmounts(t *testing.T) {
	// "/" has submounts (/proc, /sys) on every Linux host; plain ro would
	// leave them writable.
	_, err := bindOpts("/", true, Features{Runtime: "crun 1.8"})
	require.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "crun 1.8 has no recursive read-only")
	opts, err := bindOpts(testdata(t), true, Features{})
	require.NoError(t, err)
	assert.Contains(t, opts, "ro")
	assert.Equal(t, `a b\c`, unescapeMountinfo(`a\040b\134c`))
}
