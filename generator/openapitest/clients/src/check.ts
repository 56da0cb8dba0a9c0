// What the three programs share: type-level checks that a field read through a generated
// client has the type the OpenAPI document gives it, and the report each program prints
// for the Go test (generator/openapitest) to compare with the records it expects.

/** IsAny is true for any, false for every other type. */
export type IsAny<T> = 0 extends 1 & T ? true : false;

/** Equal is true when A and B are the same type. */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** typed returns value; a call does not compile when value is any. */
export function typed<T>(value: T, ..._notAny: IsAny<T> extends true ? [never] : []): T {
  return value;
}

/** exact compiles only when A and B are the same type. */
export function exact<A, B>(..._same: Equal<A, B> extends true ? [] : [never]): void {}

/** MatrixKey are the 12 positions of a matrix record. */
export type MatrixKey =
  | "personal"
  | "social"
  | "soul"
  | "body"
  | "spirit"
  | "center"
  | "talents"
  | "karma"
  | "money"
  | "relationships"
  | "destiny"
  | "purpose";

/** ErrorText is the enum of the error field of every error body. */
export type ErrorText =
  | "Invalid date"
  | "Number not found"
  | "Arcana not found"
  | "Not found"
  | "Method not allowed"
  | "Too many requests"
  | "Internal error";

/** ErrorReport is an error body as a program read it. */
export interface ErrorReport {
  error: ErrorText;
  status: number;
  valid_numbers?: number[];
}

/** Report is what each program prints: one JSON line. */
export interface Report {
  client: string;
  index_routes: number;
  openapi: string;
  openapi_etag: string;
  head_etag: string;
  list: number[];
  life_path: { number: number; archetype: string; first_famous: string };
  leading_zero: number;
  matrix_input: [number, number, number];
  matrix: Record<MatrixKey, number>;
  life_path_of_date: number;
  compatibility: { numbers: number[]; level: string };
  number_not_found: ErrorReport;
  not_a_number: ErrorReport;
  invalid_date: ErrorReport;
}

/** baseURL is the server the program calls: its first argument. */
export function baseURL(): string {
  const url = process.argv[2];
  if (!url) {
    throw new Error("usage: node program.js BASE_URL");
  }
  return url;
}

/** fail stops the program with a message. */
export function fail(what: string, got: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(got)}`);
}

/** run prints the report of main, or the error, and sets the exit code. */
export function run(main: () => Promise<Report>): void {
  main().then(
    (report) => console.log(JSON.stringify(report)),
    (err: unknown) => {
      console.error(err instanceof Error ? err.stack ?? err.message : String(err));
      process.exitCode = 1;
    },
  );
}
