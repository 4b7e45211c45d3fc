package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/sandbox"
)

func main() {
	rounds := flag.Int("rounds", 400, "alternating rounds for each file-tool ratio")
	runRounds := flag.Int("run-rounds", 30, "alternating rounds for each runtime ratio")
	daemonRounds := flag.Int("daemon-rounds", 20, "alternating rounds for each daemon ratio")
	gb := flag.String("golem-box", "bin/golem-box", "the golem-box binary to time")
	flag.Parse()
	err := run(*rounds)
	if err == nil {
		fmt.Println("golem-box bench (containers)")
		err = benchRuntimes(*gb, *runRounds)
	}
	if err == nil {
		fmt.Println("golem-box bench (OS sandboxes)")
		err = benchOSSandboxes(*gb, *runRounds)
	}
	if err == nil {
		fmt.Println("golem-box bench (daemons)")
		err = benchDaemons(*gb, *daemonRounds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(rounds int) error {
	dir, err := os.MkdirTemp("", "golem-box-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, d := range []string{"proj/src/pkg", "cache/npm"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	big := filepath.Join(dir, "proj/src/pkg/big.txt")
	if err := os.WriteFile(big, bytes.Repeat([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"), 1<<14), 0o644); err != nil {
		return err
	}
	sb := &mountspec.Sandbox{Root: filepath.Join(dir, "proj"),
		Mounts: []mountspec.Mount{{Source: filepath.Join(dir, "cache"), Target: "/cache", ReadOnly: true}}}
	if err := sb.Validate(); err != nil {
		return err
	}
	fsys, err := sandbox.Open(sb)
	if err != nil {
		return err
	}
	defer fsys.Close()

	fmt.Println("golem-box bench (file tools)")
	lex := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			if _, err := sb.Resolve("/cache/npm/pkg/index.js"); err != nil {
				b.Fatal(err)
			}
		}
	})
	perSec := 1e9 / float64(lex.NsPerOp())
	fmt.Printf("resolve (lexical)        %10.0f resolves/s  %4d ns/op  goal >= 1000000/s  %s\n", perSec, lex.NsPerOp(), verdict(perSec >= 1e6))
	walk := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			if _, err := fsys.Resolve("/src/pkg/big.txt"); err != nil {
				b.Fatal(err)
			}
		}
	})
	fmt.Printf("resolve (on disk, links) %10.0f resolves/s  %4d ns/op  (walks 3 components with lstat)\n", 1e9/float64(walk.NsPerOp()), walk.NsPerOp())

	var plain, boxed []time.Duration
	for i := 0; i < rounds; i++ {
		t0 := time.Now()
		a, err := os.ReadFile(big)
		t1 := time.Now()
		b, err2 := fsys.ReadFile("/src/pkg/big.txt")
		t2 := time.Now()
		if err != nil || err2 != nil || len(a) != len(b) {
			return fmt.Errorf("read: %v %v", err, err2)
		}
		plain, boxed = append(plain, t1.Sub(t0)), append(boxed, t2.Sub(t1))
	}
	p, s := median(plain), median(boxed)
	ratio := float64(s) / float64(p)
	fmt.Printf("read 1 MiB               sandbox %v / os.ReadFile %v = %.3fx  goal <= 1.10x  %s\n", s, p, ratio, verdict(ratio <= 1.10))
	return nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}
