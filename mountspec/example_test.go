package mountspec_test

import (
	"fmt"

	"github.com/golem-box/golem-box/mountspec"
)

func ExampleSandbox_Resolve() {
	s := &mountspec.Sandbox{
		Root:   "/home/user/project",
		Mounts: []mountspec.Mount{{Source: "/home/user/.cache", Target: "/cache", ReadOnly: true}},
	}
	for _, p := range []string{"/src/app.ts", "/cache/npm/pkg", "/../etc/passwd"} {
		r, err := s.Resolve(p)
		if err != nil {
			fmt.Printf("%s: %v\n", p, err)
			continue
		}
		fmt.Printf("%s → %s (mount %s, read-only %v)\n", p, r.Host, r.Target, r.ReadOnly)
	}
	// Output:
	// /src/app.ts → /home/user/project/src/app.ts (mount /, read-only false)
	// /cache/npm/pkg → /home/user/.cache/npm/pkg (mount /cache, read-only true)
	// /../etc/passwd: Cannot resolve "/../etc/passwd": path is outside the sandbox.
	// Readable paths: /, /cache
}

func ExampleSandbox_Restrict() {
	parent := &mountspec.Sandbox{Root: "/home/user/project"}
	readOnly := true
	child, err := parent.Restrict(mountspec.Restriction{Restrict: "/src", ReadOnly: &readOnly})
	if err != nil {
		panic(err)
	}
	fmt.Println(child.CanRead("/src/app.ts"), child.CanWrite("/src/app.ts"), child.CanRead("/secrets/key"))
	// Output: true false false
}

func ExampleParseMountFlag() {
	m, err := mountspec.ParseMountFlag("type=bind,source=/data,target=/in,readonly")
	fmt.Println(m.Source, m.Target, m.ReadOnly, err)
	_, err = mountspec.ParseMountFlag("type=bind,source=/data,target=/in,bind-propagation=shared")
	fmt.Println(err != nil)
	// Output:
	// /data /in true <nil>
	// true
}
