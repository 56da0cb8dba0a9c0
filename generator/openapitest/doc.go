// Package openapitest checks the OpenAPI 3.1 document of a generated tree with kin-openapi,
// as a validating proxy in front of the local edge server would: the document must load and
// validate as OpenAPI 3.1; every request the server answers — each route with and without
// its trailing slash, the matrix scope itself, the catch-all, every method — must find its
// operation and pass request validation (a parameter outside the digit pattern is rejected
// as that parameter, never as an unknown path); and every kind of answer — the index, the
// document itself, all life path records and the list, a sample of dates, HEAD, 304, the
// preflight and every error — must validate against it. Broken answers must fail.
package openapitest
