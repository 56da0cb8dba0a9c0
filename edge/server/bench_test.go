package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkServeRoutes answers a matrix record, a life path record and an invalid date from
// the body cache: the routing and lookup cost per request (make bench-serve measures the
// server as a whole).
func BenchmarkServeRoutes(b *testing.B) {
	h := newTestHandler(b, sharedTree(b), func() time.Time { return time.Unix(0, 0) })
	h.limiter = nil // the limiter's cost is its own benchmark's
	for _, target := range []string{"/api/public/matrix/15/05/2000", "/api/public/life-path/7", "/api/public/matrix/30/2/2000"} {
		b.Run(target, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			b.ReportAllocs()
			for b.Loop() {
				w.Body.Reset()
				clear(w.Header())
				h.ServeHTTP(w, req)
			}
		})
	}
}
