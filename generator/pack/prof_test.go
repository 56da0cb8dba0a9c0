package pack_test

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/pack"
)

func TestProfPack(t *testing.T) {
	dir := os.Getenv("PROF_TREE")
	if dir == "" {
		t.Skip()
	}
	c, err := generator.LoadContent(content.Embedded(), "content")
	if err != nil {
		t.Fatal(err)
	}
	cf, _ := os.Create("/dev/shm/ds-cpu.prof")
	pprof.StartCPUProfile(cf)
	var peak uint64
	done := make(chan bool)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak+(20<<20) {
					peak = ms.HeapInuse
					hf, _ := os.Create("/dev/shm/ds-heap.prof")
					pprof.Lookup("heap").WriteTo(hf, 0)
					hf.Close()
				}
			}
		}
	}()
	_, err = pack.Pack(context.Background(), pack.Options{Dir: dir, To: t.TempDir(), Content: func(u string) (*pack.Content, error) {
		s, err := generator.NewSite(c, u)
		if err != nil {
			return nil, err
		}
		return &pack.Content{Title: "x", Sources: generator.DatasetSources, Routes: generator.Routes(), Render: s.Renderer}, nil
	}})
	close(done)
	pprof.StopCPUProfile()
	if err != nil {
		t.Fatal(err)
	}
	mf, _ := os.Create("/dev/shm/ds-mem.prof")
	pprof.Lookup("allocs").WriteTo(mf, 0)
	t.Logf("peak heap in use %d MB", peak>>20)
}
