// Command measuredbook builds a book about asynchronous I/O whose every
// figure is measured on the machine that builds it.
//
//	go run . build            # measure what is missing, write out/
//	go run . probe readiness --param api=epoll --param idle=1000
//
// See docs/cli.md for the verbs and docs/authoring.md for the chapter
// directives.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"measuredbook/book"
	"measuredbook/probes"
	"measuredbook/runner"
)

func main() {
	// A probe's run, or a helper process a run starts (the thread-ceiling
	// grandchild), enters through the runner's child entry point.
	if len(os.Args) > 1 && os.Args[1] == runner.ChildVerb {
		os.Exit(runner.Child(os.Args[2:], probes.All(), os.Stdout, os.Stderr))
	}
	os.Exit(cliMain(os.Args[1:]))
}

// cliMain runs the command line as the program does: interruptible by
// SIGINT and SIGTERM, errors printed, the exit code returned.
func cliMain(args []string) int {
	ctx, stop := interruptible()
	defer stop()
	return exitCode(run(ctx, args, os.Stdin, os.Stdout, os.Stderr), os.Stderr)
}

// interruptible returns a context cancelled by the first SIGINT or
// SIGTERM, with the signal as its cause (for the exit code). A second
// signal is no longer caught: it ends the program at once.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(signalError{s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(sigs); cancel(nil) }
}

// signalError is the cause of a cancellation by a signal: exit 128+n, as
// a shell reports a process killed by it (130 for SIGINT, 143 for SIGTERM).
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return "signal: " + e.sig.String() }

// usagef is a mistake in the command line: a *book.UsageError, the one
// error every verb and the build refuse a request with (exit code 2).
func usagef(format string, a ...any) error { return &book.UsageError{Msg: fmt.Sprintf(format, a...)} }

// errHelp ends a run that printed help: exit 0.
var errHelp = errors.New("help shown")

// shown is an error already printed (a verb that prints its errors before
// its warnings): exitCode only maps it to a code.
type shown struct{ error }

func (s shown) Unwrap() error { return s.error }

// exitCode prints err (unless it was shown) and maps it to the exit code:
// 0 ok, 1 a failure, 2 a usage error, 128+n when signal n interrupted.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	if !errors.As(err, new(shown)) {
		fmt.Fprintln(stderr, err)
	}
	if _, ok := errors.AsType[*book.UsageError](err); ok {
		return 2
	}
	if sig, ok := errors.AsType[signalError](err); ok {
		return 128 + int(sig.sig)
	}
	return 1
}
