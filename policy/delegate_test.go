package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// project writes golem-box.yaml (and the directories it names) and loads it.
func project(t *testing.T, yaml string, dirs ...string) (*mountspec.Config, string) {
	t.Helper()
	dir := t.TempDir()
	for _, d := range dirs {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	file := filepath.Join(dir, mountspec.FileName)
	require.NoError(t, os.WriteFile(file, []byte(yaml), 0o644))
	cfg, err := mountspec.Load(file)
	require.NoError(t, err)
	return cfg, file
}

// worker parses a worker file written in dir.
func worker(t *testing.T, name, front string) *Worker {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+WorkerExt)
	require.NoError(t, os.WriteFile(file, []byte("---\n"+front+"---\nInstructions.\n"), 0o644))
	w, err := LoadWorker(file)
	require.NoError(t, err)
	return w
}

// modes summarises a sandbox as "target=rw|ro" in order, root first.
func modes(s *mountspec.Sandbox) string {
	if s == nil {
		return "none"
	}
	mode := func(ro bool) string {
		if ro {
			return "ro"
		}
		return "rw"
	}
	var out []string
	if s.Root != "" {
		out = append(out, "/="+mode(s.ReadOnly))
	}
	for _, m := range s.Mounts {
		out = append(out, m.Target+"="+mode(m.ReadOnly))
	}
	return strings.Join(out, " ")
}

// TestInheritanceTable is seed 000's permission inheritance table, for a
// worker's declaration and for a caller's restriction at call time.
func TestInheritanceTable(t *testing.T) {
	for _, tc := range []struct {
		parentRO bool
		child    string // the declaration's readonly line
		want     string // effective mode, or "ERROR"
	}{
		{false, "", "rw"},               // read-write, (default) → read-write (inherited)
		{false, "readonly: true", "ro"}, // read-write, readonly: true → read-only (downgrade)
		{true, "", "ro"},                // read-only, (default) → read-only (inherited)
		{true, "readonly: false", "ERROR"},
		{false, "readonly: false", "rw"},
		{true, "readonly: true", "ro"},
	} {
		name := fmt.Sprintf("parent_ro=%v/%s", tc.parentRO, tc.child)
		t.Run(name, func(t *testing.T) {
			cfg, file := project(t, fmt.Sprintf("sandbox:\n  root: .\n  readonly: %v\n", tc.parentRO))
			decl := "sandbox: {}\n"
			if tc.child != "" {
				decl = "sandbox:\n  " + tc.child + "\n"
			}
			w := worker(t, "child", decl)
			chain, err := Delegate(cfg, file, []*Worker{w}, mountspec.Restriction{})
			if tc.want == "ERROR" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), `worker "child" asks for read-write (readonly: false), but the project (`+file+`) has / read-only`)
				assert.Contains(t, err.Error(), w.File+":3: sandbox.readonly:")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "/="+tc.want, modes(chain.Last().Sandbox))

			// The same row as a restriction the caller puts on the call.
			var r mountspec.Restriction
			if tc.child != "" {
				v := tc.child == "readonly: true"
				r.ReadOnly = &v
			}
			chain, err = Delegate(cfg, file, []*Worker{worker(t, "child", "sandbox: {}\n")}, r)
			require.NoError(t, err)
			assert.Equal(t, "/="+tc.want, modes(chain.Last().Sandbox))
		})
	}
}

// TestPerMountInheritance is seed 000's per-mount example: the child asks
// for read-only everywhere; the cache was read-only already.
func TestPerMountInheritance(t *testing.T) {
	cfg, file := project(t, "sandbox:\n  root: project\n  mounts:\n    - {source: cache, target: /cache, readonly: true}\n", "project/src", "cache")
	chain, err := Delegate(cfg, file, []*Worker{worker(t, "analyzer", "sandbox: {readonly: true}\n")}, mountspec.Restriction{})
	require.NoError(t, err)
	assert.Equal(t, "/=ro /cache=ro", modes(chain.Last().Sandbox))

	// And the code reviewer: /src only, read-only; /cache is gone.
	chain, err = Delegate(cfg, file, []*Worker{worker(t, "code-reviewer", "sandbox: {restrict: /src, readonly: true}\n")}, mountspec.Restriction{})
	require.NoError(t, err)
	assert.Equal(t, "/src=ro", modes(chain.Last().Sandbox))
	assert.Equal(t, filepath.Join(filepath.Dir(file), "project/src"), chain.Last().Sandbox.Mounts[0].Source)
}

const zones = `sandbox:
  zones:
    data: {path: ./data}
    workspace: {path: ./workspace}
    cache: {path: ./cache}
`

// TestSeed002Delegation is seed 002's three examples of runtime enforcement.
func TestSeed002Delegation(t *testing.T) {
	t.Run("child gets only what it declared", func(t *testing.T) {
		cfg, file := project(t, zones, "data", "workspace", "cache")
		chain, err := Delegate(cfg, file, []*Worker{worker(t, "formatter", "name: formatter\nsandbox:\n  mounts:\n    - name: data\n      readonly: false\n")}, mountspec.Restriction{})
		require.NoError(t, err)
		assert.Equal(t, "/data=rw", modes(chain.Last().Sandbox))
	})
	t.Run("read-write where the parent has read-only is an error naming both", func(t *testing.T) {
		cfg, file := project(t, "sandbox:\n  zones:\n    data: {path: ./data, mode: ro}\n", "data")
		w := worker(t, "formatter", "sandbox:\n  mounts:\n    - name: data\n      readonly: false\n")
		_, err := Delegate(cfg, file, []*Worker{w}, mountspec.Restriction{})
		require.Error(t, err)
		assert.Equal(t, w.File+`:5: sandbox.mounts[0].readonly: worker "formatter" asks for read-write on mount "data" (/data), but the project (`+file+`) has it read-only (fix: ask for readonly: true, or make the mount read-write in the caller)`, err.Error())
		assert.ErrorIs(t, err, mountspec.ErrInvalidConfig)
	})
	t.Run("no declaration is a pure function", func(t *testing.T) {
		cfg, file := project(t, "sandbox:\n  zones:\n    data: {path: ./data}\n    workspace: {path: ./workspace}\n", "data", "workspace")
		chain, err := Delegate(cfg, file, []*Worker{worker(t, "validator", "description: validates data\n")}, mountspec.Restriction{})
		require.NoError(t, err)
		assert.Nil(t, chain.Last().Sandbox)
	})
}

func TestGrantErrorsNameBothSides(t *testing.T) {
	cfg, file := project(t, zones, "data", "workspace", "cache")
	main := worker(t, "main", "sandbox:\n  mounts: [{name: data, readonly: true}, {name: workspace}]\n")

	// A name the parent lacks.
	child := worker(t, "reporter", "sandbox:\n  mounts:\n    - name: cache\n")
	_, err := Delegate(cfg, file, []*Worker{main, child}, mountspec.Restriction{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `sandbox.mounts[0].name: worker "reporter" asks for mount "cache", but worker "main" (`+main.File+`) has no mount of that name (its named mounts: data, workspace)`)

	// A name the caller has but does not pass on for this call.
	child = worker(t, "reporter", "sandbox:\n  mounts:\n    - name: workspace\n")
	_, err = Delegate(cfg, file, []*Worker{main, child}, mountspec.Restriction{Restrict: "/data"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `but worker "main" (`+main.File+`) does not pass it on for this call`)

	// A subtree the parent cannot see.
	child = worker(t, "reporter", "sandbox: {restrict: /secrets}\n")
	_, err = Delegate(cfg, file, []*Worker{main, child}, mountspec.Restriction{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `worker "reporter" asks for /secrets, but worker "main" (`+main.File+`) has no such path (it can read: /data, /workspace)`)

	// A sandbox below a pure function.
	pure := worker(t, "pure", "description: no files\n")
	_, err = Delegate(cfg, file, []*Worker{pure, worker(t, "reporter", "sandbox: {}\n")}, mountspec.Restriction{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `worker "reporter" declares a sandbox, but its caller worker "pure" (`+pure.File+`) has no file access`)

	// Read-only at call time, read-write asked: the call is named.
	child = worker(t, "writer", "sandbox:\n  mounts:\n    - {name: workspace, readonly: false}\n")
	ro := true
	_, err = Delegate(cfg, file, []*Worker{main, child}, mountspec.Restriction{ReadOnly: &ro})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `has it read-only for this call`)
}

func TestThreeLevelChainNarrows(t *testing.T) {
	cfg, file := project(t, "sandbox:\n  root: .\n  mounts:\n    - {source: data, target: /data, name: data}\n    - {source: out, target: /out, name: out}\n", "data", "out", "src")
	main := worker(t, "main", "sandbox: {}\n")
	analyst := worker(t, "analyst", "sandbox:\n  mounts: [{name: data, readonly: true}, {name: out}]\n")
	writer := worker(t, "writer", "sandbox:\n  mounts: [{name: out}]\n")
	chain, err := Delegate(cfg, file, []*Worker{main, analyst, writer}, mountspec.Restriction{})
	require.NoError(t, err)
	require.Len(t, chain.Levels, 4)
	assert.Equal(t, []string{"/=rw /data=rw /out=rw", "/=rw /data=rw /out=rw", "/data=ro /out=rw", "/out=rw"},
		[]string{modes(chain.Levels[0].Sandbox), modes(chain.Levels[1].Sandbox), modes(chain.Levels[2].Sandbox), modes(chain.Levels[3].Sandbox)})
	assert.Equal(t, 2, chain.Last().Depth)
	// The writer cannot climb back to what the analyst lost.
	_, err = Delegate(cfg, file, []*Worker{main, analyst, worker(t, "w", "sandbox:\n  mounts: [{name: data, readonly: false}]\n")}, mountspec.Restriction{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `but worker "analyst" (`+analyst.File+`) has it read-only`)
}

func TestDepthBound(t *testing.T) {
	cfg, file := project(t, "sandbox: {root: .}\ndelegation: {max_depth: 2}\n")
	w := worker(t, "w", "sandbox: {}\n")
	_, err := Delegate(cfg, file, []*Worker{w, w, w}, mountspec.Restriction{})
	require.NoError(t, err)
	_, err = Delegate(cfg, file, []*Worker{w, w, w, w}, mountspec.Restriction{})
	require.Error(t, err)
	assert.Equal(t, file+": delegation.max_depth: the chain w → w → w → w is 3 calls deep; the limit is 2 (fix: call fewer levels deep, or raise delegation.max_depth)", err.Error())

	// The default is 5.
	cfg, file = project(t, "sandbox: {root: .}\n")
	ws := []*Worker{w, w, w, w, w, w}
	_, err = Delegate(cfg, file, ws, mountspec.Restriction{})
	require.NoError(t, err)
	_, err = Delegate(cfg, file, append(ws, w), mountspec.Restriction{})
	assert.ErrorContains(t, err, "is 6 calls deep; the limit is 5")

	// Out of range is a configuration error.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, mountspec.FileName), []byte("sandbox: {root: .}\ndelegation:\n  max_depth: -1\n"), 0o644))
	_, err = mountspec.Load(filepath.Join(dir, mountspec.FileName))
	assert.ErrorContains(t, err, ":3: delegation.max_depth: must be between 0 and 100, got -1")
}

func TestParseWorkerErrors(t *testing.T) {
	for _, tc := range []struct{ name, file, content, want string }{
		{"no front matter", "a.worker", "# just markdown\n", "a.worker:1: does not start with front matter"},
		{"unclosed", "a.worker", "---\nname: a\n", "a.worker:2: the front matter is not closed"},
		{"typo in sandbox", "a.worker", "---\nname: a\nsandbox:\n  restrit: /src\n---\n", "a.worker:4: sandbox.restrit: unknown field (fix: use one of: restrict, readonly, mounts)"},
		{"typo in a mount", "a.worker", "---\nsandbox:\n  mounts:\n    - nam: data\n---\n", "a.worker:4: sandbox.mounts[0].nam: unknown field (fix: use one of: name, readonly)"},
		{"name differs", "a.worker", "---\nname: b\n---\n", `a.worker:2: name: "b" differs from the file name a.worker (fix: rename the file b.worker or write name: a)`},
		{"relative restrict", "a.worker", "---\nsandbox: {restrict: src}\n---\n", `a.worker:2: sandbox.restrict: must be absolute, got "src" (fix: write "/src")`},
		{"escaping restrict", "a.worker", "---\nsandbox: {restrict: /../etc}\n---\n", `sandbox.restrict: "/../etc" is not a path in the sandbox`},
		{"mount twice", "a.worker", "---\nsandbox:\n  mounts: [{name: d}, {name: d}]\n---\n", `a.worker:3: sandbox.mounts[1].name: "d" is asked for twice`},
		{"no name", "notes.md", "---\ndescription: x\n---\n", "notes.md:1: name: is missing"},
		{"bad yaml", "a.worker", "---\nname: [\n---\n", "a.worker: yaml: line 2: did not find expected node content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseWorker([]byte(tc.content), tc.file)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.ErrorIs(t, err, mountspec.ErrInvalidConfig)
		})
	}
	// Fields of the agent runtime are not golem-box's business; the body is kept.
	w, err := ParseWorker([]byte("\xef\xbb\xbf---\r\nname: a\r\nmodel: x\r\ntoolsets: {git: {}}\r\n---\r\nDo it.\r\n"), "a.worker")
	require.NoError(t, err)
	assert.Equal(t, "a", w.Name)
	assert.Nil(t, w.Sandbox)
	assert.Equal(t, "Do it.\n", w.Instructions)
	// "sandbox:" with nothing under it declares nothing.
	w, err = ParseWorker([]byte("---\nsandbox:\n---\n"), "b.worker")
	require.NoError(t, err)
	assert.Equal(t, "b", w.Name)
	assert.Nil(t, w.Sandbox)
}
