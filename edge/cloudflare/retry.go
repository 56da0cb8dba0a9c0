package cloudflare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/cloudflare/cloudflare-go/v6/workers"
)

// Retry is the retry policy of every API call: bounded attempts, exponential backoff with
// full jitter, and Retry-After honoured on 429 answers.
type Retry struct {
	Attempts int           // total tries of one call, at least 1
	Base     time.Duration // the first backoff ceiling; it doubles after each try
	Max      time.Duration // no backoff is longer
	// MaxRetryAfter is the longest Retry-After of a 429 that is waited out (zero: Max).
	// Cloudflare's API, over its limit, blocks a token for five minutes and says so.
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx is done; nil means a timer. Tests replace it to see the
	// waits without spending them.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultRetry is 5 tries with waits of up to 0.5 s, 1 s, 2 s, 4 s (jittered), at most 30 s,
// and a 429's Retry-After of up to 300 s waited out.
var DefaultRetry = Retry{Attempts: 5, Base: 500 * time.Millisecond, Max: 30 * time.Second, MaxRetryAfter: 300 * time.Second}

// RetryAfterError reports a 429 whose Retry-After is longer than the deploy waits.
type RetryAfterError struct {
	What  string
	After time.Duration
	Err   error
}

func (e *RetryAfterError) Error() string {
	return fmt.Sprintf("%s: Cloudflare's API is rate limiting this token (HTTP 429) and asks to wait %s: run deploy again after that", e.What, e.After)
}

func (e *RetryAfterError) Unwrap() error { return e.Err }

// do runs call until it succeeds, fails with an error that is not worth retrying, or runs
// out of attempts. log, when set, is told of each retry.
func (r Retry) do(ctx context.Context, what string, log func(string), call func() error) error {
	attempts := max(r.Attempts, 1)
	var err error
	for attempt := 1; ; attempt++ {
		err = call()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		wait, retry := r.backoff(err, attempt)
		if after, ok := retryAfter(err); ok && after > r.maxRetryAfter() {
			return &RetryAfterError{What: what, After: after, Err: err}
		}
		if !retry {
			return err
		}
		if attempt >= attempts {
			return fmt.Errorf("giving up after %d attempts: %w", attempts, err)
		}
		if log != nil {
			note := ""
			if _, ok := retryAfter(err); ok {
				note = " as Retry-After asks (Cloudflare's API rate limit)"
			}
			log(fmt.Sprintf("retry: %s: %s; waiting %s%s (attempt %d of %d)", what, reason(err), wait.Round(time.Millisecond), note, attempt+1, attempts))
		}
		sleep := r.Sleep
		if sleep == nil {
			sleep = sleepCtx
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// backoff says whether err is transient (429, 5xx, a network failure) and how long to wait.
func (r Retry) backoff(err error, attempt int) (time.Duration, bool) {
	var apiErr *workers.Error
	if errors.As(err, &apiErr) {
		for _, e := range apiErr.Errors {
			if definiteCodes[e.Code] {
				return 0, false // the answer, not a passing failure
			}
		}
		status := apiErr.StatusCode
		if status != http.StatusTooManyRequests && status < 500 {
			return 0, false
		}
		if after, ok := retryAfter(err); ok {
			return after, true
		}
		return r.jitter(attempt), true
	}
	if errors.Is(err, context.Canceled) {
		return 0, false
	}
	// The caller's context is still live here, so a deadline is one attempt's timeout. An
	// answer too long to read is taken for a broken connection too.
	var (
		netErr   net.Error
		tooLarge *AnswerTooLargeError
	)
	if errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.As(err, &tooLarge) {
		return r.jitter(attempt), true
	}
	return 0, false
}

// retryAfter returns the Retry-After of a 429 answer, in whole seconds as Cloudflare sends it.
func retryAfter(err error) (time.Duration, bool) {
	var apiErr *workers.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests || apiErr.Response == nil {
		return 0, false
	}
	s, perr := strconv.Atoi(apiErr.Response.Header.Get("Retry-After"))
	if perr != nil || s < 0 {
		return 0, false
	}
	return time.Duration(s) * time.Second, true
}

func (r Retry) maxRetryAfter() time.Duration {
	if r.MaxRetryAfter > 0 {
		return r.MaxRetryAfter
	}
	return r.Max
}

// jitter is "full jitter": a uniform wait between 0 and min(Max, Base·2^(attempt-1)).
func (r Retry) jitter(attempt int) time.Duration {
	ceiling := r.Base << min(attempt-1, 20)
	if ceiling <= 0 || ceiling > r.Max {
		ceiling = r.Max
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

func reason(err error) string {
	var (
		apiErr   *workers.Error
		tooLarge *AnswerTooLargeError
	)
	if errors.As(err, &apiErr) {
		return "HTTP " + strconv.Itoa(apiErr.StatusCode)
	}
	if errors.As(err, &tooLarge) {
		return fmt.Sprintf("an answer over %d MiB", MaxAnswer>>20)
	}
	return "network error: " + err.Error()
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
