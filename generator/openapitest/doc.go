// Package openapitest checks the OpenAPI 3.1 document of a generated tree with kin-openapi:
// the document must load and validate as OpenAPI 3.1, and every kind of response the local
// edge server gives — the index, the document itself, all life path records and the list,
// a sample of dates, HEAD, 304, the preflight and every error — must validate against it.
package openapitest
