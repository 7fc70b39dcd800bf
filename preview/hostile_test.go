package preview

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The preview answers only requests that name its own address: a page of
// another site resolved to the loopback address (DNS rebinding) sends its
// own name in Host and is refused.
func TestOnlyItsOwnHostIsServed(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "site") })
	h := OwnHost(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8000}, ok)
	for host, want := range map[string]int{
		"localhost:8000": 200, "127.0.0.1:8000": 200, "[::1]:8000": 200,
		"evil.example:8000": http.StatusMisdirectedRequest, "localhost:9000": http.StatusMisdirectedRequest,
		"localhost": http.StatusMisdirectedRequest, "127.0.0.1.nip.io:8000": http.StatusMisdirectedRequest,
	} {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/_serve/events", nil)
		r.Host = host
		h.ServeHTTP(rec, r)
		if rec.Code != want {
			t.Errorf("Host %s: %d, want %d", host, rec.Code, want)
		}
	}
}

// The watched folder removed and made again is watched again: a save into
// the restored folder still rebuilds.
func TestRestoredFolderIsWatchedAgain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chapters")
	os.Mkdir(dir, 0o755)
	write(t, filepath.Join(dir, "a.md"), "x")
	w, err := NewWatcher([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := w.Run(ctx)
	wait := func(what string) {
		t.Helper()
		select {
		case <-changes:
		case <-time.After(20 * time.Second):
			t.Fatalf("no rebuild after %s", what)
		}
	}
	os.RemoveAll(dir)
	wait("the folder was removed")
	os.Mkdir(dir, 0o755)
	wait("the folder was made again")
	write(t, filepath.Join(dir, "a.md"), "y")
	wait("a save into the restored folder")
	// A file beside the folder (out/, the cache) is no change of it.
	write(t, filepath.Join(filepath.Dir(dir), "other"), "z")
	select {
	case <-changes:
		t.Error("a file beside the watched folder rebuilt the site")
	case <-time.After(200 * time.Millisecond):
	}
}

// Ctrl-C ends serve with the signal as its cause, also while a client
// holds the event stream open without reading it.
func TestServeStopsWithAClientThatDoesNotRead(t *testing.T) {
	src := fixture(t)
	dirs, err := src.Folders()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, Options{Addr: addr, Watch: dirs, Build: src.Build, Log: &syncBuffer{}}) }()
	var conn net.Conn
	for range 200 {
		if conn, err = net.Dial("tcp", addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if conn == nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", EventsPath, addr)
	if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.Contains(line, "200") {
		t.Fatalf("event stream: %q, %v", line, err)
	}
	stop := errors.New("signal: interrupt")
	cancel(stop)
	select {
	case err := <-served:
		if !errors.Is(err, stop) {
			t.Errorf("Serve returned %v, want the interrupt", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after the interrupt")
	}
}
