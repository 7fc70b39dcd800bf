package preview

import (
	"net"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequestPath: no request path names a page outside the site's flat
// folder (and data/), and no path or Host header makes the handler panic.
func FuzzRequestPath(f *testing.F) {
	for _, s := range []string{"/", "/index.html", "/data/x.csv", "/%2e%2e/etc/passwd", "/data/../x", "/.measuredbook-site", "/a%2fb", "/%00"} {
		f.Add(s, "127.0.0.1:8000")
	}
	f.Add("/", "evil.example:8000")
	s := NewServer(func() (*Site, error) {
		return &Site{Pages: map[string][]byte{"index.html": []byte("<body></body>")}}, nil
	}, nil)
	s.Rebuild()
	h := OwnHost(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8000}, s)
	f.Fuzz(func(t *testing.T, path, host string) {
		if name, ok := pageName(path); ok {
			file := strings.TrimPrefix(name, "data/")
			if strings.ContainsAny(file, "/\\\x00") || strings.HasPrefix(file, ".") {
				t.Fatalf("%q names %q", path, name)
			}
		}
		r := httptest.NewRequest("GET", "/", nil)
		r.URL.RawPath, r.URL.Path, r.Host = "", path, host
		if strings.HasPrefix(path, "/_serve/") {
			return // the event stream does not end by itself
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
	})
}
