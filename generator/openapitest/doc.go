// Package openapitest checks the OpenAPI 3.1 document of a generated tree as its users
// would.
//
// TestResponsesMatchOpenAPI uses kin-openapi as a validating proxy in front of the local
// edge server: the document must load and validate as OpenAPI 3.1; every request the server
// answers with an operation of the document — each route with and without its trailing
// slash (dropped first, as the description says), any path segment, HEAD as GET — must
// pass request validation, since the edge, not the proxy, answers a segment a route does
// not admit; the requests the description answers instead (other methods, paths no route
// matches) must have no operation; and every kind of answer — the index, the document
// itself, all life path records and the list, a sample of dates, HEAD, 304, the preflight
// and every error — must validate against the document. Broken answers must fail.
//
// TestDocumentForClients checks the document's shape for client generators, and
// TestGeneratedClients runs openapi-typescript, @hey-api/openapi-ts and orval on it, compiles
// the clients with tsc --strict and runs them against numerology serve, and lints the
// document with Redocly and Spectral (the npm project in clients/).
package openapitest
