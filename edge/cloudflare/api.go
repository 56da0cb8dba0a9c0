package cloudflare

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/cloudflare/cloudflare-go/v6/workers"
	json "github.com/goccy/go-json"
)

// defaultBaseURL is Cloudflare's API address.
const defaultBaseURL = "https://api.cloudflare.com/client/v4/"

// rawCall makes one API call that cloudflare-go v6 has no method for (the zone's details,
// the custom domains changeset) with the deploy's token, client and timeout, and decodes
// the envelope's result into out. A refusal is a *workers.Error, as the SDK returns it, so
// retries and the classification of errors treat both alike.
func (a *applier) rawCall(ctx context.Context, method, path string, body, out any) error {
	base := a.d.BaseURL
	if base == "" {
		base = defaultBaseURL
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode the request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(base, "/")+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.d.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body) // at most MaxAnswer: the client caps every answer
	if err != nil {
		return err
	}
	var env struct {
		Success bool            `json:"success"`
		Result  json.RawMessage `json:"result"`
	}
	if resp.StatusCode >= 300 || json.Unmarshal(b, &env) != nil || !env.Success {
		apiErr := &workers.Error{StatusCode: resp.StatusCode, Request: req, Response: resp}
		_ = apiErr.UnmarshalJSON(b) // the errors, when the body is an envelope
		return apiErr
	}
	if out != nil {
		if err := json.Unmarshal(env.Result, out); err != nil {
			return fmt.Errorf("decode the answer of %s %s: %w", method, path, err)
		}
	}
	return nil
}

// MaxAnswer is the most bytes of one answer of Cloudflare's API that deploy reads. The
// largest it expects is an upload session's buckets: about 36 bytes per file, 3.6 MB for
// the 100,000 files of a version on Workers Paid.
const MaxAnswer = 16 << 20

// AnswerTooLargeError reports an answer longer than MaxAnswer: not read further. It is
// retried like a broken connection (a proxy's glitch), then fails the deploy.
type AnswerTooLargeError struct {
	Method, URL string
}

func (e *AnswerTooLargeError) Error() string {
	return fmt.Sprintf("the answer to %s %s is longer than %d MiB, more than any answer deploy expects: not read further", e.Method, e.URL, MaxAnswer>>20)
}

// cappedClient is client (http.DefaultClient when nil) with every answer's body cut off
// at MaxAnswer bytes with an *AnswerTooLargeError: cloudflare-go reads its answers whole.
func cappedClient(client *http.Client) *http.Client {
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = cappedTransport{base}
	return &c
}

type cappedTransport struct{ base http.RoundTripper }

func (t cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: MaxAnswer, err: &AnswerTooLargeError{Method: req.Method, URL: req.URL.Redacted()}}
	return resp, nil
}

// cappedBody fails a read past left bytes.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
	err  error
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 { // one byte past the cap tells a longer answer from one that ends there
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, b.err
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
