package pack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	kflate "github.com/klauspost/compress/flate"
)

// TestCompressPartsOrder: the parts' entries come back in the parts' order, each with its
// own bytes, whatever order the parts become ready in (here the last first).
func TestCompressPartsOrder(t *testing.T) {
	const n = 12
	release := make([]chan struct{}, n)
	var parts []part
	for i := range n {
		release[i] = make(chan struct{})
		body := []byte(strings.Repeat(fmt.Sprintf("part %d ", i), 100*(n-i)))
		p := bytesPart(fmt.Sprintf("p%02d", i), body)
		p.ready = func(ctx context.Context) error {
			select {
			case <-release[i]:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		parts = append(parts, p)
	}
	go func() {
		for i := n - 1; i >= 0; i-- {
			close(release[i])
		}
	}()
	done, err := compressParts(context.Background(), parts)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range done {
		var want bytes.Buffer
		parts[i].write(context.Background(), &want)
		if e.name != parts[i].name || e.size != int64(want.Len()) || e.sum != sha256.Sum256(want.Bytes()) {
			t.Errorf("entry %d is %s, %d bytes, want %s, %d bytes", i, e.name, e.size, parts[i].name, want.Len())
			continue
		}
		got, err := io.ReadAll(kflate.NewReader(bytes.NewReader(e.data)))
		if err != nil || !e.deflated || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: deflated %v, inflates to %d bytes (%v)", e.name, e.deflated, len(got), err)
		}
	}
}

// TestCompressStores: a file that deflating does not make smaller is stored as it is; one
// whose bytes change from one writing to the next is refused.
func TestCompressStores(t *testing.T) {
	noise := make([]byte, 100_000)
	r := rand.NewChaCha8([32]byte{1})
	r.Read(noise)
	z := newCompressor()
	e, err := z.compress(context.Background(), bytesPart("noise", noise))
	if err != nil {
		t.Fatal(err)
	}
	if e.deflated || !bytes.Equal(e.data, noise) {
		t.Errorf("noise: deflated %v, %d bytes", e.deflated, len(e.data))
	}
	calls := 0
	changing := part{name: "changing", write: func(_ context.Context, w io.Writer) error {
		calls++
		b := bytes.Clone(noise)
		b[0] = byte(calls)
		_, err := w.Write(b)
		return err
	}}
	if _, err := z.compress(context.Background(), changing); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("a part whose bytes change: %v", err)
	}
}
