// Command golem-box runs work in Docker-style sandboxes and gives file tools
// that stay inside them.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		if _, ok := err.(exitError); !ok { // the command's own status says it all
			fmt.Fprintln(os.Stderr, "golem-box:", err)
		}
		os.Exit(exitCode(err))
	}
}
