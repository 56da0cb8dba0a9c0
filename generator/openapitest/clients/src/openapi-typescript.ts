// The client of openapi-typescript (types, gen/openapi-typescript/schema.ts) with
// openapi-fetch: every field is read into an explicitly typed variable, so a wrong type in
// the document fails the compilation under tsc --strict.
import createClient from "openapi-fetch";
import type { components, paths } from "../gen/openapi-typescript/schema";
import { baseURL, exact, fail, run, typed, type ErrorReport, type ErrorText, type MatrixKey, type Report } from "./check";

type Schemas = components["schemas"];

exact<Schemas["ErrorBody"]["error"], ErrorText>();
exact<keyof Schemas["MatrixPositions"], MatrixKey>();
exact<Schemas["MatrixCell"]["arcana"], number>();

run(async (): Promise<Report> => {
  const api = createClient<paths>({ baseUrl: baseURL() });

  const index = await api.GET("/api/public");
  if (!index.data) fail("getIndex", index.error);
  const routes: number = typed(index.data.routes.length);

  const doc = await api.GET("/api/public/openapi.json");
  if (!doc.data) fail("getOpenAPI", doc.error);
  const version: "3.1.0" = typed(doc.data.openapi);
  const head = await api.HEAD("/api/public/openapi.json");
  if (head.response.status !== 200) fail("headOpenAPI", head.response.status);

  const list = await api.GET("/api/public/life-path");
  if (!list.data) fail("listLifePaths", list.error);
  const numbers: number[] = list.data.map((item) => typed(item.number));

  const seven = await api.GET("/api/public/life-path/{number}", { params: { path: { number: 7 } } });
  if (!seven.data) fail("getLifePath 7", seven.error);
  const archetype: string = typed(seven.data.archetype);
  const famous: string = typed(seven.data.famous_people[0].name);
  const zero = await api.GET("/api/public/life-path/{number}", { params: { path: { number: "07" } } });
  if (!zero.data) fail("getLifePath 07", zero.error);

  const rec = await api.GET("/api/public/matrix/{day}/{month}/{year}", {
    params: { path: { day: 15, month: 5, year: 1990 } },
  });
  if (!rec.data) fail("getMatrix", rec.error);
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

  const ofDate = await api.GET("/api/public/life-path/{day}/{month}/{year}", {
    params: { path: { day: 15, month: 5, year: 1990 } },
  });
  if (!ofDate.data) fail("getLifePathOfDate", ofDate.error);
  const lifePathOfDate: number = typed(ofDate.data.number);
  const pair = await api.GET("/api/public/compatibility/{a}/{b}", { params: { path: { a: 11, b: 3 } } });
  if (!pair.data) fail("getCompatibility", pair.error);
  const pairNumbers: number[] = typed(pair.data.numbers);
  const pairLevel: string = typed(pair.data.level);

  const ten = await api.GET("/api/public/life-path/{number}", { params: { path: { number: "10" } } });
  if (ten.error?.status !== 404) fail("getLifePath 10", ten.error);
  const validNumbers: number[] = typed(ten.error.valid_numbers);
  const numberNotFound: ErrorReport = { error: typed(ten.error.error), status: ten.error.status, valid_numbers: validNumbers };

  const word = await api.GET("/api/public/life-path/{number}", { params: { path: { number: "seven" } } });
  if (word.error?.status !== 404) fail("getLifePath seven", word.error);
  const notANumber: ErrorReport = { error: typed(word.error.error), status: word.error.status };

  const bad = await api.GET("/api/public/matrix/{day}/{month}/{year}", {
    params: { path: { day: 30, month: 2, year: 1990 } },
  });
  if (bad.error?.status !== 400) fail("getMatrix 30.02", bad.error);
  const invalidDate: ErrorReport = { error: typed(bad.error.error), status: bad.error.status };

  return {
    client: "openapi-typescript",
    index_routes: routes,
    openapi: version,
    openapi_etag: doc.response.headers.get("ETag") ?? "",
    head_etag: head.response.headers.get("ETag") ?? "",
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
