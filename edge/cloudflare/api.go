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
	client := a.d.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
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
