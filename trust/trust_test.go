package trust

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/pkg/xattr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree is a root with a project file and an inbox mount.
func tree(t *testing.T) (*mountspec.Sandbox, string) {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"proj/src", "inbox/deep/er"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	for _, f := range []string{"proj/src/main.go", "inbox/deep/er/report.pdf"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
	}
	sb := &mountspec.Sandbox{Root: filepath.Join(dir, "proj"), Mounts: []mountspec.Mount{{Source: filepath.Join(dir, "inbox"), Target: "/inbox", ReadOnly: true}}}
	require.NoError(t, sb.Validate())
	return sb, dir
}

func TestCleanTreeIsTrusted(t *testing.T) {
	sb, _ := tree(t)
	v, err := Classify(context.Background(), sb, Options{})
	require.NoError(t, err)
	assert.False(t, v.Untrusted)
	assert.Empty(t, v.Reasons)
	assert.Equal(t, 7, v.Scanned, "proj, src, main.go, inbox, deep, er, report.pdf")
}

func TestProvenanceMarkMakesItUntrusted(t *testing.T) {
	sb, dir := tree(t)
	pdf := filepath.Join(dir, "inbox/deep/er/report.pdf")
	require.NoError(t, xattr.Set(pdf, "user.xdg.origin.url", []byte("https://evil.example/report.pdf")), "the test directory's filesystem must keep user xattrs")
	v, err := Classify(context.Background(), sb, Options{})
	require.NoError(t, err)
	assert.True(t, v.Untrusted)
	require.Len(t, v.Reasons, 1)
	assert.Equal(t, KindMark, v.Reasons[0].Kind)
	assert.Equal(t, pdf, v.Reasons[0].Path)
	assert.Equal(t, "user.xdg.origin.url=https://evil.example/report.pdf", v.Reasons[0].Detail)

	// --trusted wins, and what it overrides is kept.
	v, err = Classify(context.Background(), sb, Options{Trusted: true})
	require.NoError(t, err)
	assert.False(t, v.Untrusted)
	require.Len(t, v.Overridden, 1)
	assert.Equal(t, pdf, v.Overridden[0].Path)
}

func TestOtherMarks(t *testing.T) {
	for _, c := range []struct{ name, attr, file string }{
		{"referrer", "user.xdg.referrer.url", "a.txt"},
		{"quarantine as Linux sees it", "user.com.apple.quarantine", "b.txt"},
		{"Zone.Identifier", "", "setup.exe:Zone.Identifier"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb, dir := tree(t)
			p := filepath.Join(dir, "proj/src", c.file)
			require.NoError(t, os.WriteFile(p, nil, 0o644))
			if c.attr != "" {
				require.NoError(t, xattr.Set(p, c.attr, []byte("0081;5f;Safari;")))
			}
			v, err := Classify(context.Background(), sb, Options{})
			require.NoError(t, err)
			assert.True(t, v.Untrusted)
			assert.Equal(t, p, v.Reasons[0].Path)
		})
	}
}

func TestMarkedMountsAndFlags(t *testing.T) {
	sb, _ := tree(t)
	sb.Mounts[0].Trust = mountspec.Untrusted
	v, err := Classify(context.Background(), sb, Options{})
	require.NoError(t, err)
	assert.True(t, v.Untrusted)
	assert.Contains(t, v.Reasons[0].Detail, "sandbox.mounts[0] (/inbox) is marked trust: untrusted")
	assert.Equal(t, 3, v.Scanned, "an untrusted mount is not scanned")

	sb, _ = tree(t)
	v, err = Classify(context.Background(), sb, Options{Untrusted: true})
	require.NoError(t, err)
	assert.True(t, v.Untrusted)
	assert.Equal(t, KindFlag, v.Reasons[0].Kind)

	_, err = Classify(context.Background(), sb, Options{Untrusted: true, Trusted: true})
	assert.ErrorContains(t, err, "contradict")

	v, err = Classify(context.Background(), sb, Options{Attachments: []string{sb.Root + "/src/main.go"}, UntrustedAttachments: true})
	require.NoError(t, err)
	assert.True(t, v.Untrusted)
	assert.Equal(t, KindAttachment, v.Reasons[0].Kind)
}

func TestScanIsBoundedAndFailsClosed(t *testing.T) {
	sb, _ := tree(t)
	v, err := Classify(context.Background(), sb, Options{MaxEntries: 4})
	require.NoError(t, err)
	assert.True(t, v.Untrusted, "what could not be checked is not trusted")
	assert.Equal(t, KindUnchecked, v.Reasons[0].Kind)
	assert.Equal(t, 4, v.Scanned)
}

func TestScanDoesNotFollowLinks(t *testing.T) {
	sb, dir := tree(t)
	outside := filepath.Join(dir, "outside")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "x"), nil, 0o644))
	require.NoError(t, xattr.Set(filepath.Join(outside, "x"), "user.xdg.origin.url", []byte("https://x")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "proj/link")))
	v, err := Classify(context.Background(), sb, Options{})
	require.NoError(t, err)
	assert.False(t, v.Untrusted, "%v", v.Reasons)
}

// probe reports the named backends as unusable.
func probe(down ...string) Probe {
	return func(_ context.Context, name string) error {
		for _, d := range down {
			if d == name {
				return errors.New(name + " is not installed")
			}
		}
		return nil
	}
}

func TestRoute(t *testing.T) {
	defer func(goos string) { hostOS = goos }(hostOS)
	ctx := context.Background()
	trusted := &Verdict{Reasons: []Reason{}, Scanned: 12}
	untrusted := &Verdict{Untrusted: true, Reasons: []Reason{{Kind: KindMark, Path: "/in/doc.pdf", Detail: "user.xdg.origin.url=https://x"}}}
	for _, c := range []struct {
		name      string
		goos      string
		v         *Verdict
		requested string
		down      []string
		want      string
		wantErr   string
		reason    string
	}{
		{name: "trusted takes bwrap", v: trusted, want: "bwrap", reason: "lightest usable OS sandbox: bwrap"},
		{name: "trusted without bwrap takes landlock", v: trusted, down: []string{"bwrap"}, want: "landlock"},
		{name: "trusted without OS sandboxes takes a container", v: trusted, down: []string{"bwrap", "landlock"}, want: "oci", reason: "which is stronger"},
		{name: "untrusted takes a container", v: untrusted, want: "oci", reason: "/in/doc.pdf carries a provenance mark"},
		{name: "untrusted without oci takes containerd", v: untrusted, down: []string{"oci"}, want: "containerd"},
		{name: "untrusted never falls back to an OS sandbox", v: untrusted, down: []string{"oci", "containerd", "docker"}, wantErr: "must run in a container"},
		{name: "untrusted refuses an explicit OS sandbox", v: untrusted, requested: "bwrap", wantErr: "must run in a container"},
		{name: "explicit container", v: trusted, requested: "docker", want: "docker", reason: "asked for explicitly"},
		{name: "explicit and unusable", v: trusted, requested: "docker", down: []string{"docker"}, wantErr: "docker is not installed"},
		{name: "macOS takes seatbelt", goos: "darwin", v: trusted, want: "seatbelt"},
		{name: "macOS without seatbelt takes a container", goos: "darwin", v: trusted, down: []string{"seatbelt"}, want: "oci"},
		{name: "no OS sandbox on this platform", goos: "windows", v: trusted, down: []string{"oci", "containerd", "docker"}, wantErr: "no OS sandbox for windows"},
		{name: "nothing at all", v: trusted, down: []string{"bwrap", "landlock", "oci", "containerd", "docker"}, wantErr: "require_os_sandbox"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hostOS = c.goos
			if hostOS == "" {
				hostOS = "linux"
			}
			d, err := Route(ctx, c.v, c.requested, true, probe(c.down...))
			if c.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, d.Backend)
			if c.reason != "" {
				assert.Contains(t, strings.Join(d.Reasons, "\n"), c.reason)
			}
			for _, k := range d.Considered {
				if k.Backend != d.Backend {
					assert.NotEmpty(t, k.Why, "every backend not chosen says why")
				}
			}
		})
	}
}
