//go:build cgo

package threads

// The book's binary links runtime/cgo (through its dependencies), so the
// runtime makes its threads with pthread_create and glibc's stacks; the
// test binary does the same, so that the tests see the threads the book
// measures (threads.idle_rss's stack_rss, the ceiling's pthread errors).
import _ "runtime/cgo"
