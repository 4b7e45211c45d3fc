package policy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answer is a scripted approver: it records what it was asked.
type answer struct {
	yes   bool
	fail  bool
	asked []*Request
}

func (a *answer) Name() string { return "script" }

func (a *answer) Approve(_ context.Context, r *Request) (Answer, error) {
	a.asked = append(a.asked, r)
	if a.fail {
		return Answer{}, errors.New("the approval UI crashed")
	}
	return Answer{Approved: a.yes, Reason: map[bool]string{true: "", false: "not today"}[a.yes]}, nil
}

func readLog(t *testing.T, path string) []Entry {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e Entry
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		out = append(out, e)
	}
	return out
}

// TestApprovalMatrix: mount mode × approval setting × approver answer ×
// operation → what happens on disk, who was asked, what was logged.
func TestApprovalMatrix(t *testing.T) {
	ops := []struct {
		name string
		do   func(*sandbox.FS) error
		// done reports whether the change reached the disk.
		done func(dir string) bool
	}{
		{"write", func(f *sandbox.FS) error {
			_, err := f.Write("/m/new.txt", []byte("new\n"), sandbox.WriteOptions{})
			return err
		}, func(dir string) bool { _, err := os.Stat(filepath.Join(dir, "new.txt")); return err == nil }},
		{"edit", func(f *sandbox.FS) error {
			_, err := f.Edit("/m/keep.txt", "old", "changed", false)
			return err
		}, func(dir string) bool {
			b, _ := os.ReadFile(filepath.Join(dir, "keep.txt"))
			return string(b) == "changed\n"
		}},
		{"append", func(f *sandbox.FS) error {
			_, err := f.Write("/m/keep.txt", []byte("more\n"), sandbox.WriteOptions{Append: true})
			return err
		}, func(dir string) bool {
			b, _ := os.ReadFile(filepath.Join(dir, "keep.txt"))
			return string(b) == "old\nmore\n"
		}},
		{"delete", func(f *sandbox.FS) error { return f.Delete("/m/keep.txt", false) },
			func(dir string) bool { _, err := os.Stat(filepath.Join(dir, "keep.txt")); return err != nil }},
	}
	for _, readonly := range []bool{false, true} {
		for _, setting := range []mountspec.ApprovalMode{mountspec.ApprovalPreApproved, mountspec.ApprovalAsk, mountspec.ApprovalBlocked} {
			for _, ans := range []string{"yes", "no", "nobody", "fails"} {
				for _, op := range ops {
					name := fmt.Sprintf("ro=%v/%s/%s/%s", readonly, setting, ans, op.name)
					t.Run(name, func(t *testing.T) {
						dir := t.TempDir()
						require.NoError(t, os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("old\n"), 0o644))
						sb := &mountspec.Sandbox{Mounts: []mountspec.Mount{{Source: dir, Target: "/m", ReadOnly: readonly,
							Approval: mountspec.Approval{Write: setting, Delete: setting}}}}
						require.NoError(t, sb.Validate())
						fsys, err := sandbox.Open(sb)
						require.NoError(t, err)
						defer fsys.Close()
						logPath := filepath.Join(t.TempDir(), "log", "approvals.jsonl")
						a := &answer{yes: ans == "yes", fail: ans == "fails"}
						g := &Gate{Sandbox: sb, Who: "tester", Log: OpenLog(logPath)}
						if ans != "nobody" {
							g.Approver = a
						}
						fsys.SetGuard(g)

						err = op.do(fsys)
						entries := readLog(t, logPath)

						wantDone := !readonly && (setting == mountspec.ApprovalPreApproved || setting == mountspec.ApprovalAsk && ans == "yes")
						assert.Equal(t, wantDone, op.done(dir), "effect on disk")
						if wantDone {
							require.NoError(t, err)
						} else {
							require.Error(t, err)
							b, _ := os.ReadFile(filepath.Join(dir, "keep.txt"))
							assert.Equal(t, "old\n", string(b), "disk unchanged")
							_, statErr := os.Stat(filepath.Join(dir, "new.txt"))
							assert.True(t, os.IsNotExist(statErr))
						}
						asked := !readonly && setting == mountspec.ApprovalAsk && ans != "nobody"
						assert.Equal(t, asked, len(a.asked) == 1, "approver asked")
						if readonly {
							// Refused by the sandbox before anyone is asked; not a decision.
							assert.ErrorIs(t, err, mountspec.ErrReadOnly)
							assert.Empty(t, entries)
							return
						}
						require.Len(t, entries, 1, "one decision logged")
						e := entries[0]
						assert.Equal(t, "tester", e.Who)
						assert.Equal(t, wantDone, e.Approved)
						assert.Equal(t, setting, e.Setting)
						assert.Equal(t, "/m", e.Mount)
						assert.WithinDuration(t, time.Now(), e.Time, time.Minute)
						switch {
						case setting == mountspec.ApprovalPreApproved:
							assert.Equal(t, ByPolicy, e.Approver)
						case setting == mountspec.ApprovalBlocked:
							assert.Equal(t, ByPolicy, e.Approver)
							assert.ErrorIs(t, err, ErrBlocked)
						case ans == "nobody":
							assert.Equal(t, ByNobody, e.Approver)
							assert.ErrorIs(t, err, ErrNoApprover)
							assert.Contains(t, err.Error(), "--yes")
						case ans == "no":
							assert.Equal(t, "script", e.Approver)
							assert.ErrorIs(t, err, ErrNotApproved)
							assert.Contains(t, err.Error(), "script said: not today.")
						case ans == "fails":
							assert.Equal(t, "the approval UI crashed", e.Reason)
							assert.ErrorIs(t, err, ErrNotApproved)
						}
					})
				}
			}
		}
	}
}

// TestBoundariesBeforeApproval: what the sandbox forbids is refused without
// asking anyone, even when the approver would say yes.
func TestBoundariesBeforeApproval(t *testing.T) {
	dir := t.TempDir()
	sb := &mountspec.Sandbox{Mounts: []mountspec.Mount{{Source: dir, Target: "/m", Suffixes: []string{".md"}, MaxFileBytes: 8}}}
	require.NoError(t, sb.Validate())
	fsys, err := sandbox.Open(sb)
	require.NoError(t, err)
	defer fsys.Close()
	a := &answer{yes: true}
	fsys.SetGuard(&Gate{Sandbox: sb, Who: "w", Approver: a})
	for _, p := range []string{"/m/a.txt", "/outside.md", "/m/../../x.md"} {
		_, err := fsys.Write(p, []byte("x"), sandbox.WriteOptions{})
		require.Error(t, err, p)
	}
	_, err = fsys.Write("/m/a.md", []byte("too long for the limit"), sandbox.WriteOptions{})
	assert.ErrorIs(t, err, mountspec.ErrTooLarge)
	assert.Empty(t, a.asked)
	entries, _ := os.ReadDir(dir)
	assert.Empty(t, entries)

	// Within the boundaries, the approver sees the change and a diff.
	_, err = fsys.Write("/m/a.md", []byte("one\n"), sandbox.WriteOptions{})
	require.NoError(t, err)
	_, err = fsys.Edit("/m/a.md", "one", "two", false)
	require.NoError(t, err)
	require.Len(t, a.asked, 2)
	assert.Equal(t, "--- /dev/null\n+++ b/m/a.md\n@@ -0,0 +1 @@\n+one\n", a.asked[0].Diff)
	assert.Equal(t, "--- a/m/a.md\n+++ b/m/a.md\n@@ -1 +1 @@\n-one\n+two\n", a.asked[1].Diff)
	assert.Equal(t, "edit", a.asked[1].Op)
	assert.Equal(t, mountspec.ApprovalAsk, a.asked[1].Setting, "ask is the default")
}

func TestCommandApprover(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "request.json")
	approve := Command{Argv: []string{"/bin/sh", "-c", "cat > " + got + "; echo fine"}}
	r := &Request{Who: "w", Change: sandbox.Change{Op: "write", Path: "/a", Mount: "/", NewBytes: 3}, Setting: mountspec.ApprovalAsk, Diff: "+abc\n"}
	a, err := approve.Approve(context.Background(), r)
	require.NoError(t, err)
	assert.Equal(t, Answer{Approved: true, Reason: "fine"}, a)
	var req map[string]any
	b, err := os.ReadFile(got)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &req))
	assert.Equal(t, map[string]any{"who": "w", "op": "write", "path": "/a", "mount": "/", "exists": false,
		"old_bytes": 0.0, "new_bytes": 3.0, "setting": "ask", "diff": "+abc\n"}, req)
	assert.Equal(t, "command: cat > "+got+"; echo fine", approve.Name())

	a, err = Command{Argv: []string{"/bin/sh", "-c", "echo 'too big' >&2; exit 3"}}.Approve(context.Background(), r)
	require.NoError(t, err)
	assert.Equal(t, Answer{Approved: false, Reason: "too big"}, a)

	_, err = Command{Argv: []string{"/bin/sh", "-c", "sleep 10"}, Timeout: 200 * time.Millisecond}.Approve(context.Background(), r)
	assert.ErrorContains(t, err, "did not answer within 200ms")

	_, err = Command{Argv: []string{filepath.Join(dir, "missing")}}.Approve(context.Background(), r)
	assert.ErrorContains(t, err, "the approval command could not run")

	// Its output is bounded.
	a, err = Command{Argv: []string{"/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x; exit 1"}}.Approve(context.Background(), r)
	require.NoError(t, err)
	assert.Equal(t, maxReasonBytes, len(a.Reason))
}

func TestPromptApprover(t *testing.T) {
	r := &Request{Who: "w", Change: sandbox.Change{Op: "write", Path: "/notes/a.md", Mount: "/notes"}, Diff: "--- a\n+++ b\n-x\n+y\n"}
	for in, want := range map[string]bool{"y\n": true, "YES\n": true, "n\n": false, "\n": false, "": false, "maybe\n": false} {
		var out strings.Builder
		a, err := Prompt{In: strings.NewReader(in), Out: &out}.Approve(context.Background(), r)
		require.NoError(t, err)
		assert.Equal(t, want, a.Approved, "%q", in)
		assert.Contains(t, out.String(), "w wants to write /notes/a.md (mount /notes)\n--- a\n+++ b\n-x\n+y\nAllow? [y/N] ")
	}
	var out strings.Builder
	_, err := Prompt{In: strings.NewReader("y\n"), Out: &out}.Approve(context.Background(),
		&Request{Who: "w", Change: sandbox.Change{Op: "delete", Path: "/d", Mount: "/", Recursive: true}})
	require.NoError(t, err)
	assert.Contains(t, out.String(), "w wants to delete /d\n  the directory and everything in it\n")
}

func TestLogRefusesLinksAndFailsClosed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	link := filepath.Join(dir, "approvals.jsonl")
	require.NoError(t, os.Symlink(target, link))
	mdir := t.TempDir()
	sb := &mountspec.Sandbox{Mounts: []mountspec.Mount{{Source: mdir, Target: "/m", Approval: mountspec.Approval{Write: mountspec.ApprovalPreApproved}}}}
	require.NoError(t, sb.Validate())
	fsys, err := sandbox.Open(sb)
	require.NoError(t, err)
	defer fsys.Close()
	fsys.SetGuard(&Gate{Sandbox: sb, Who: "w", Log: OpenLog(link)})
	_, err = fsys.Write("/m/a", []byte("x"), sandbox.WriteOptions{})
	assert.ErrorContains(t, err, "the decision could not be logged")
	_, statErr := os.Stat(filepath.Join(mdir, "a"))
	assert.True(t, os.IsNotExist(statErr), "nothing written when the decision cannot be logged")
	_, statErr = os.Stat(target)
	assert.True(t, os.IsNotExist(statErr))
}

func TestLogPathStaysOutOfWritableMounts(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	cfg := &mountspec.Config{Sandbox: mountspec.Sandbox{Root: t.TempDir()}}
	p, err := LogPath(cfg)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(state, "golem-box", "approvals.jsonl"), p)

	cfg.Sandbox.Root = state
	_, err = LogPath(cfg)
	assert.ErrorContains(t, err, "is inside the writable mount /, so a worker could rewrite the record of its own approvals")
	cfg.Sandbox.ReadOnly = true
	_, err = LogPath(cfg)
	assert.NoError(t, err)

	// A configured log inside a writable mount is a configuration error.
	dir := t.TempDir()
	file := filepath.Join(dir, mountspec.FileName)
	require.NoError(t, os.WriteFile(file, []byte("sandbox: {root: .}\napproval:\n  log: logs/approvals.jsonl\n"), 0o644))
	_, err = mountspec.Load(file)
	assert.ErrorContains(t, err, file+":3: approval.log: "+filepath.Join(dir, "logs/approvals.jsonl")+" is inside the writable mount /")
}
