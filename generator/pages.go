package generator

import "context"

// writePages writes the human pages and the OpenAPI document (the pages issue fills it in).
func writePages(ctx context.Context, s *Site, emit func(path string, body []byte) error) error {
	return nil
}
