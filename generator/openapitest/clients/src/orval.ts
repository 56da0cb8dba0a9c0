// The client of orval (gen/orval/api.ts, its fetch client): every field is read into an
// explicitly typed variable, so a wrong type in the document fails the compilation under
// tsc --strict.
import {
  getCompatibility,
  getIndex,
  getLifePath,
  getLifePathOfDate,
  getMatrix,
  getOpenAPI,
  headOpenAPI,
  listLifePaths,
  type ErrorBody,
  type MatrixCell,
  type MatrixPositions,
} from "../gen/orval/api";
import { baseURL, exact, fail, run, typed, type ErrorReport, type ErrorText, type MatrixKey, type Report } from "./check";

exact<ErrorBody["error"], ErrorText>();
exact<keyof MatrixPositions, MatrixKey>();
exact<MatrixCell["arcana"], number>();

run(async (): Promise<Report> => {
  // orval's fetch client requests the document's paths as they are; resolve them against
  // the server under test.
  const base = baseURL();
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => realFetch(new URL(String(input), base), init);

  const index = await getIndex();
  if (index.status !== 200) fail("getIndex", index.data);
  const routes: number = typed(index.data.routes.length);

  const doc = await getOpenAPI();
  if (doc.status !== 200) fail("getOpenAPI", doc.data);
  const version: "3.1.0" = typed(doc.data.openapi);
  const head = await headOpenAPI();
  if (head.status !== 200) fail("headOpenAPI", head.status);

  const list = await listLifePaths();
  if (list.status !== 200) fail("listLifePaths", list.data);
  const numbers: number[] = list.data.map((item) => typed(item.number));

  const seven = await getLifePath(7);
  if (seven.status !== 200) fail("getLifePath 7", seven.data);
  const archetype: string = typed(seven.data.archetype);
  const famous: string = typed(seven.data.famous_people[0].name);
  const zero = await getLifePath("07");
  if (zero.status !== 200) fail("getLifePath 07", zero.data);

  const rec = await getMatrix(15, 5, 1990);
  if (rec.status !== 200) fail("getMatrix", rec.data);
  const m = typed(rec.data.matrix);
  const matrix: Record<MatrixKey, number> = {
    personal: m.personal.arcana,
    social: m.social.arcana,
    soul: m.soul.arcana,
    body: m.body.arcana,
    spirit: m.spirit.arcana,
    center: m.center.arcana,
    talents: m.talents.arcana,
    karma: m.karma.arcana,
    money: m.money.arcana,
    relationships: m.relationships.arcana,
    destiny: m.destiny.arcana,
    purpose: m.purpose.arcana,
  };
  const input: [number, number, number] = [rec.data.input.day, rec.data.input.month, rec.data.input.year];

  const ofDate = await getLifePathOfDate(15, 5, 1990);
  if (ofDate.status !== 200) fail("getLifePathOfDate", ofDate.data);
  const lifePathOfDate: number = typed(ofDate.data.number);
  const pair = await getCompatibility(11, 3);
  if (pair.status !== 200) fail("getCompatibility", pair.data);
  const pairNumbers: number[] = typed(pair.data.numbers);
  const pairLevel: string = typed(pair.data.level);

  const ten = await getLifePath("10");
  if (ten.status !== 404) fail("getLifePath 10", ten.data);
  const validNumbers: number[] = typed(ten.data.valid_numbers);
  const numberNotFound: ErrorReport = { error: typed(ten.data.error), status: ten.data.status, valid_numbers: validNumbers };

  const word = await getLifePath("seven");
  if (word.status !== 404) fail("getLifePath seven", word.data);
  const notANumber: ErrorReport = { error: typed(word.data.error), status: word.data.status };

  const bad = await getMatrix(30, 2, 1990);
  if (bad.status !== 400) fail("getMatrix 30.02", bad.data);
  const invalidDate: ErrorReport = { error: typed(bad.data.error), status: bad.data.status };

  return {
    client: "orval",
    index_routes: routes,
    openapi: version,
    openapi_etag: doc.headers.get("ETag") ?? "",
    head_etag: head.headers.get("ETag") ?? "",
    list: numbers,
    life_path: { number: seven.data.number, archetype, first_famous: famous },
    leading_zero: zero.data.number,
    matrix_input: input,
    matrix,
    life_path_of_date: lifePathOfDate,
    compatibility: { numbers: pairNumbers, level: pairLevel },
    number_not_found: numberNotFound,
    not_a_number: notANumber,
    invalid_date: invalidDate,
  };
});
