// Command measuredbook builds a book about asynchronous I/O whose every
// figure is measured on the machine that builds it.
//
//	go run . build            # measure what is missing, write out/
//	go run . probe readiness --param api=epoll --param idle=1000
//
// See README.md for the verbs and the chapter directives.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"measuredbook/probes"
	"measuredbook/probes/threads"
	"measuredbook/runner"
)

func main() {
	// The thread-ceiling probe re-executes this binary as a grandchild that
	// creates threads until the kernel refuses; it must run before anything.
	if threads.CeilingChildMain() {
		return
	}
	if len(os.Args) > 1 && os.Args[1] == runner.ChildVerb {
		os.Exit(runner.Child(os.Args[2:], probes.All(), os.Stdout, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	os.Exit(exitCode(err, os.Stderr))
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// errHelp ends a run that printed help: exit 0.
var errHelp = errors.New("help shown")

func exitCode(err error, stderr io.Writer) int {
	var u *usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &u):
		fmt.Fprintln(stderr, err)
		return 2
	}
	fmt.Fprintln(stderr, err)
	return 1
}
