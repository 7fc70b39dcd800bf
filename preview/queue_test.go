package preview

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// A build that fails for want of results (every result stale, so hidden)
// still queues them: --measure measures them, and the next build may
// then succeed.
func TestFailedBuildStillQueues(t *testing.T) {
	var mu sync.Mutex
	measured := false
	build := func() (*Site, error) {
		mu.Lock()
		defer mu.Unlock()
		if !measured {
			return &Site{Pending: []Pending{{ID: "echo", Why: "stale", Here: true}}}, errors.New("chapter.md:1:1: no result")
		}
		return &Site{Pages: map[string][]byte{"index.html": []byte("ok")}}, nil
	}
	s := NewServer(build, nil)
	if rebuild(s) {
		t.Fatal("the build without results succeeded")
	}
	if p := s.pending(); len(p) != 1 || p[0].ID != "echo" {
		t.Fatalf("pending after a failed build: %+v", p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan string, 1)
	go s.Follow(ctx, nil, func(ctx context.Context, id string, progress func(string)) error {
		mu.Lock()
		measured = true
		mu.Unlock()
		done <- id
		return nil
	})
	select {
	case id := <-done:
		if id != "echo" {
			t.Errorf("measured %s", id)
		}
	case <-ctx.Done():
		t.Fatal("--measure never measured what the failed build queued")
	}
}
