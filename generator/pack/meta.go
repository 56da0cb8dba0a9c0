package pack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/pack/table"
	"github.com/opennumerology/numerology/internal/contract"
)

// Document file names inside the zip, and its folders.
const (
	DataPackageFile = "datapackage.json"
	CitationFile    = "CITATION.cff"
	LicenseFile     = "LICENSE"
	ReadmeFile      = "README.md"
	SumsFile        = "SHA256SUMS"
	CSVDir          = "csv"
	ParquetDir      = "parquet"
)

// License identifiers of the data (SPDX and Open Definition use the same one).
const (
	LicenseID    = "CC-BY-4.0"
	LicenseTitle = "Creative Commons Attribution 4.0 International"
	LicenseURL   = "https://creativecommons.org/licenses/by/4.0/"
)

// DataPackageProfile is the Data Package version datapackage.json follows.
const DataPackageProfile = "https://datapackage.org/profiles/2.0/datapackage.json"

// meta is what a dataset states about itself besides its content's facts: the tree's, or
// what an archive says when verify derives it again.
type meta struct {
	APIVersion  string
	SiteURL     string
	APIBase     string
	Years       []int
	ContentDate string // YYYY-MM-DD or ""
}

func datasetMeta(m *manifest.Manifest, contentDate string) meta {
	return meta{APIVersion: m.APIVersion, SiteURL: m.SiteURL, APIBase: m.APIBase, Years: m.Years, ContentDate: contentDate}
}

// dataset is what the zip is built from: the meta facts, the content's, and the filled
// tables and the routes' files.
type dataset struct {
	m     meta
	c     *Content
	build *build
}

func (d *dataset) base() string { return BaseName(d.m.APIVersion) }

// listed is a file of the zip as datapackage.json and SHA256SUMS state it.
type listed struct {
	name string
	size int64
	sum  [sha256.Size]byte
}

// parts are the files of the zip before the documents, in the zip's order: the database,
// each table as CSV and Parquet, and the JSON of the routes without a date. A table's files
// and its rows in the database wait until the table is filled (build.wait). dir is a folder
// for the database to be built in; remove deletes what it leaves there.
func (d *dataset) parts(dir string) (parts []part, remove func()) {
	db := &sqliteDB{dir: dir, tables: d.build.tables, meta: d.metaRows(), wait: d.build.wait}
	parts = append(parts, part{name: SQLite, write: func(ctx context.Context, w io.Writer) error {
		if err := db.write(ctx, w); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &OutputError{err}
		}
		return nil
	}})
	for _, t := range d.build.tables {
		ready := func(ctx context.Context) error { return d.build.wait(ctx, t) }
		parts = append(parts,
			part{name: CSVDir + "/" + t.Name + ".csv", ready: ready, write: func(_ context.Context, w io.Writer) error {
				return writeCSV(t, w)
			}},
			part{name: ParquetDir + "/" + t.Name + ".parquet", ready: ready, write: func(_ context.Context, w io.Writer) error {
				return writeParquet(t, w)
			}})
	}
	for _, f := range d.build.api {
		parts = append(parts, bytesPart(f.name, f.body))
	}
	return parts, db.remove
}

// documents are the files of the zip after the parts, which list them (files):
// datapackage.json, CITATION.cff, LICENSE and README.md. SHA256SUMS (sums) comes last.
func (d *dataset) documents(files []listed) ([]file, error) {
	pkg, err := d.dataPackage(files)
	if err != nil {
		return nil, err
	}
	return []file{{DataPackageFile, pkg}, {CitationFile, d.citation()}, {LicenseFile, d.license()}, {ReadmeFile, d.readme()}}, nil
}

// sums is SHA256SUMS: a line per file of the zip before it, sorted by name.
func sums(files []listed) []byte {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b listed) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	for _, f := range files {
		b.WriteString(hex.EncodeToString(f.sum[:]) + "  " + f.name + "\n")
	}
	return []byte(b.String())
}

// finish adds to the parts' entries (done) the documents, which list them, and
// SHA256SUMS: the zip's entries, in order.
func (d *dataset) finish(ctx context.Context, done []entry) ([]entry, error) {
	files := make([]listed, len(done))
	for i, e := range done {
		files[i] = e.listed
	}
	docs, err := d.documents(files)
	if err != nil {
		return nil, err
	}
	z := newCompressor()
	add := func(name string, body []byte) error {
		e, err := z.compress(ctx, bytesPart(name, body))
		if err != nil {
			return err
		}
		done = append(done, e)
		files = append(files, e.listed)
		return nil
	}
	for _, f := range docs {
		if err := add(f.name, f.body); err != nil {
			return nil, err
		}
	}
	if err := add(SumsFile, sums(files)); err != nil {
		return nil, err
	}
	return done, nil
}

// emit renders every file of the zip and hands each to put, in the zip's order: the parts,
// the documents, and SHA256SUMS last. Only one file's bytes are held at a time (and what put
// keeps); body is put's to keep. dir is a folder for the database to be built in for the
// moment it takes. verify --archive derives a zip's files with it; Pack makes the same
// files, several at a time (Pack).
func (d *dataset) emit(ctx context.Context, dir string, put func(name string, body []byte) error) error {
	parts, remove := d.parts(dir)
	defer remove()
	var files []listed
	add := func(name string, body []byte) error {
		files = append(files, listed{name, int64(len(body)), sha256.Sum256(body)})
		return put(name, body)
	}
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		var b bytes.Buffer
		if err := p.write(ctx, &b); err != nil {
			return err
		}
		if err := add(p.name, b.Bytes()); err != nil {
			return err
		}
	}
	docs, err := d.documents(files)
	if err != nil {
		return err
	}
	for _, f := range docs {
		if err := add(f.name, f.body); err != nil {
			return err
		}
	}
	return put(SumsFile, sums(files))
}

// yearsLabel is the years as a range, "1900–2100", or listed when they are not one.
func (m meta) yearsLabel() string {
	first, last := m.Years[0], m.Years[len(m.Years)-1]
	if last-first+1 == len(m.Years) {
		if first == last {
			return strconv.Itoa(first)
		}
		return strconv.Itoa(first) + "–" + strconv.Itoa(last)
	}
	s := make([]string, len(m.Years))
	for i, y := range m.Years {
		s[i] = strconv.Itoa(y)
	}
	return strings.Join(s, ", ")
}

// metaRows are the rows of the database's meta table.
func (d *dataset) metaRows() []metaRow {
	rows := []metaRow{
		{"api_version", d.m.APIVersion},
		{"title", d.c.Title},
		{"publisher", d.c.Publisher},
		{"license", LicenseID},
		{"license_url", LicenseURL},
		{"attribution", d.c.Attribution},
		{"source_url", d.m.APIBase},
		{"site_url", d.m.SiteURL},
		{"years", d.m.yearsLabel()},
	}
	if d.m.ContentDate != "" {
		rows = append(rows, metaRow{"content_date", d.m.ContentDate})
	}
	slices.SortFunc(rows, func(a, b metaRow) int { return strings.Compare(a.key, b.key) })
	return rows
}

// DataPackage is datapackage.json: a Frictionless Data Package (v2) descriptor.
type DataPackage struct {
	Schema       string        `json:"$schema"`
	Name         string        `json:"name"`
	Title        string        `json:"title"`
	Description  string        `json:"description"`
	Version      string        `json:"version"`
	Homepage     string        `json:"homepage"`
	Created      string        `json:"created,omitempty"` // the content's date, when known
	Keywords     []string      `json:"keywords"`
	Licenses     []License     `json:"licenses"`
	Sources      []Source      `json:"sources"`
	Contributors []Contributor `json:"contributors"`
	// Years are the years whose dates the dataset holds (a property of this dataset's own).
	Years     []int      `json:"years"`
	Resources []Resource `json:"resources"`
}

// License is one entry of DataPackage.Licenses.
type License struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Title string `json:"title"`
}

// Source is one entry of DataPackage.Sources.
type Source struct {
	Title string `json:"title"`
	Path  string `json:"path"`
}

// Contributor is one entry of DataPackage.Contributors.
type Contributor struct {
	Title string   `json:"title"`
	Path  string   `json:"path,omitempty"`
	Roles []string `json:"roles"`
}

// Resource is one file of the package: a table as CSV or Parquet, the database, or a date
// route's records (a download of its own, by URL).
type Resource struct {
	Name        string   `json:"name"`
	Type        string   `json:"type,omitempty"` // "table" for the tables
	Path        string   `json:"path"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Format      string   `json:"format"`
	Mediatype   string   `json:"mediatype"`
	Encoding    string   `json:"encoding,omitempty"`
	Bytes       int64    `json:"bytes,omitempty"`
	Hash        string   `json:"hash,omitempty"` // "sha256:<hex>"
	Dialect     *Dialect `json:"dialect,omitempty"`
	Schema      *Schema  `json:"schema,omitempty"`
}

// Dialect is the CSV dialect of a resource.
type Dialect struct {
	Delimiter      string `json:"delimiter"`
	LineTerminator string `json:"lineTerminator"`
	QuoteChar      string `json:"quoteChar"`
	DoubleQuote    bool   `json:"doubleQuote"`
	Header         bool   `json:"header"`
}

// Schema is a Table Schema.
type Schema struct {
	Fields      []Field      `json:"fields"`
	PrimaryKey  []string     `json:"primaryKey"`
	ForeignKeys []ForeignKey `json:"foreignKeys,omitempty"`
}

// Field is one column of a Table Schema.
type Field struct {
	Name        string       `json:"name"`
	Type        string       `json:"type"`
	Description string       `json:"description"`
	Constraints *Constraints `json:"constraints,omitempty"`
}

// Constraints are a field's Table Schema constraints.
type Constraints struct {
	Required bool  `json:"required,omitempty"`
	Unique   bool  `json:"unique,omitempty"`
	Minimum  any   `json:"minimum,omitempty"`
	Maximum  any   `json:"maximum,omitempty"`
	Enum     []int `json:"enum,omitempty"`
}

// ForeignKey links fields of a resource to another resource's key.
type ForeignKey struct {
	Fields    []string     `json:"fields"`
	Reference ForeignTable `json:"reference"`
}

// ForeignTable is the target of a ForeignKey.
type ForeignTable struct {
	Resource string   `json:"resource"`
	Fields   []string `json:"fields"`
}

// HashPrefix starts every Resource.Hash: Frictionless names a non-MD5 algorithm this way.
const HashPrefix = "sha256:"

// ParquetSuffix ends the name of a table's Parquet resource; its CSV resource is named as
// the table.
const ParquetSuffix = "_parquet"

// schema is a table's Table Schema; its foreign keys name resources as name does.
func schema(t *table.Table, name func(string) string) *Schema {
	s := &Schema{PrimaryKey: t.PrimaryKey}
	first, last := dateRange(t)
	for _, c := range t.Columns {
		cons := &Constraints{Required: !c.Nullable, Unique: c.Unique}
		switch {
		case c.Type == table.Date && first != "":
			cons.Minimum, cons.Maximum = first, last
		case c.Enum != nil:
			cons.Enum = c.Enum
		case c.Min != 0 || c.Max != 0:
			cons.Minimum, cons.Maximum = c.Min, c.Max
		}
		s.Fields = append(s.Fields, Field{Name: c.Name, Type: c.Type.SchemaType(), Description: c.Description, Constraints: cons})
	}
	for _, fk := range t.ForeignKeys {
		s.ForeignKeys = append(s.ForeignKeys, ForeignKey{Fields: []string{fk.Column}, Reference: ForeignTable{Resource: name(fk.Table), Fields: []string{fk.TableColumn}}})
	}
	return s
}

// dateRange is the first and last value of a table's first date column, "" when it has none.
func dateRange(t *table.Table) (first, last string) {
	for i, c := range t.Columns {
		if c.Type == table.Date && t.Len() > 0 {
			return t.Value(0, i).String(), t.Value(t.Len()-1, i).String()
		}
	}
	return "", ""
}

// hashOf is a file's Resource.Hash.
func hashOf(f listed) string { return HashPrefix + hex.EncodeToString(f.sum[:]) }

// downloadURL is the URL a file of downloads/ is published at.
func (d *dataset) downloadURL(name string) string {
	return d.m.SiteURL + "/" + manifest.DownloadsDir + "/" + name
}

func (d *dataset) dataPackage(files []listed) ([]byte, error) {
	byName := map[string]listed{}
	for _, f := range files {
		byName[f.name] = f
	}
	var titles []string
	pkg := DataPackage{
		Schema:       DataPackageProfile,
		Name:         contract.DatasetName,
		Title:        d.c.Title + " — dataset " + d.m.APIVersion,
		Version:      d.m.APIVersion,
		Homepage:     d.m.SiteURL,
		Keywords:     keywords,
		Licenses:     []License{{Name: LicenseID, Path: LicenseURL, Title: LicenseTitle}},
		Sources:      []Source{{Title: "API «" + d.c.Title + "»", Path: d.m.APIBase}},
		Contributors: []Contributor{{Title: d.c.Publisher, Path: d.m.SiteURL, Roles: []string{"publisher"}}},
		Years:        d.m.Years,
	}
	if d.m.ContentDate != "" {
		pkg.Created = d.m.ContentDate + "T00:00:00Z"
	}
	same := func(s string) string { return s }
	parquetName := func(s string) string { return s + ParquetSuffix }
	for _, t := range d.build.tables {
		titles = append(titles, strings.ToLower(t.Title[:1])+t.Title[1:])
		csvPath := CSVDir + "/" + t.Name + ".csv"
		pkg.Resources = append(pkg.Resources, Resource{
			Name: t.Name, Type: "table", Path: csvPath, Title: t.Title, Description: t.Description,
			Format: "csv", Mediatype: "text/csv", Encoding: "utf-8",
			Bytes: byName[csvPath].size, Hash: hashOf(byName[csvPath]),
			Dialect: &Dialect{Delimiter: ",", LineTerminator: "\n", QuoteChar: `"`, DoubleQuote: true, Header: true},
			Schema:  schema(t, same),
		})
	}
	for _, t := range d.build.tables {
		pqPath := ParquetDir + "/" + t.Name + ".parquet"
		pkg.Resources = append(pkg.Resources, Resource{
			Name: t.Name + ParquetSuffix, Type: "table", Path: pqPath, Title: t.Title + " (Parquet)", Description: t.Description,
			Format: "parquet", Mediatype: "application/vnd.apache.parquet",
			Bytes: byName[pqPath].size, Hash: hashOf(byName[pqPath]),
			Schema: schema(t, parquetName),
		})
	}
	pkg.Resources = append(pkg.Resources, Resource{
		Name: "sqlite", Path: SQLite, Title: "Every table in one SQLite database",
		Description: "The tables above as one SQLite 3 database, with their primary and foreign keys, and a meta table (API version, licence, attribution, source URL, years, the content's date).",
		Format:      "sqlite", Mediatype: "application/vnd.sqlite3",
		Bytes: byName[SQLite].size, Hash: hashOf(byName[SQLite]),
	})
	for _, r := range d.build.dateRoutes {
		pkg.Resources = append(pkg.Resources, Resource{
			Name: "records_" + strings.ReplaceAll(r.Name, "-", "_"), Path: d.downloadURL(JSONLName(r.Name)),
			Title:       "The records of " + r.Pattern + " (JSON Lines)",
			Description: "Every record of " + r.English + ", the exact bytes the API serves, one a line in date order, gzip'ed: a download of its own. The fields are described in the API's OpenAPI document.",
			Format:      "jsonl", Mediatype: "application/jsonl",
		})
	}
	pkg.Description = "The Open Numerology Data API " + d.m.APIVersion + " offline, dates of " + d.m.yearsLabel() + ": " + strings.Join(titles, "; ") +
		", as CSV and Parquet tables and one SQLite database; the JSON of the routes without a date under " + manifest.APIDir +
		"/; the records of each date route as JSON Lines, a download each. Texts are in Russian."
	b, err := json.MarshalIndentWithOption(pkg, "", "  ", json.DisableHTMLEscape())
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", DataPackageFile, err)
	}
	return append(b, '\n'), nil
}

// keywords are the dataset's keywords, in datapackage.json and CITATION.cff alike: what it
// holds for a date, then the field.
var keywords = []string{"numerology", "life path number", "destiny matrix", "full destiny-matrix chart",
	"Pythagoras square", "personal year", "open data", "нумерология"}

// yq quotes s as a YAML double-quoted scalar (a JSON string is one).
func yq(s string) string {
	b, _ := json.MarshalWithOption(s, json.DisableHTMLEscape())
	return string(b)
}

func (d *dataset) citation() []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Citation File Format: https://citation-file-format.github.io/\n")
	w("cff-version: 1.2.0\n")
	w("message: %s\n", yq("If you use this dataset, please cite it as below. Если вы используете эти данные, ссылайтесь на них так, как показано ниже."))
	w("type: dataset\n")
	w("title: %s\n", yq(d.c.Title+" — dataset "+d.m.APIVersion))
	w("abstract: %s\n", yq(fmt.Sprintf("The life path number, the destiny matrix, the full destiny-matrix chart and the Pythagoras square of every birth date of %s, the personal year of every birthday in each of those years, and the texts that describe them (in Russian), as CSV and Parquet tables, a SQLite database and the JSON records of the API at %s.",
		d.m.yearsLabel(), d.m.APIBase)))
	w("authors:\n  - name: %s\n    website: %s\n", yq(d.c.Publisher), yq(d.m.SiteURL))
	w("version: %s\n", yq(d.m.APIVersion))
	if d.m.ContentDate != "" {
		w("date-released: %s\n", yq(d.m.ContentDate))
	}
	w("license: %s\n", LicenseID)
	w("url: %s\n", yq(d.m.SiteURL))
	w("repository-artifact: %s\n", yq(d.downloadURL(d.base()+Zip)))
	w("keywords:\n")
	for _, k := range keywords {
		w("  - %s\n", yq(k))
	}
	return []byte(b.String())
}

func (d *dataset) license() []byte {
	return []byte(d.c.Title + ` — dataset ` + d.m.APIVersion + `
Copyright (c) ` + d.c.Publisher + ` (` + d.m.SiteURL + `)

This dataset is licensed under the ` + LicenseTitle + ` licence (CC BY 4.0).
Licence deed:  ` + LicenseURL + `
Legal code:    ` + LicenseURL + `legalcode

You are free to share (copy and redistribute the material in any medium or format) and to
adapt it (remix, transform and build upon it) for any purpose, even commercially, under the
following terms: you must give appropriate credit, provide a link to the licence and indicate
if changes were made; you may not apply legal terms or technological measures that legally
restrict others from doing anything the licence permits.

Набор данных распространяется по лицензии Creative Commons «` + d.c.LicenseName + `»
(CC BY 4.0). Данные можно копировать, распространять и перерабатывать для любых целей, в том
числе коммерческих, при условии указания источника, ссылки на лицензию и отметки о внесённых
изменениях.

Attribution wording / Как указывать источник:

    ` + d.c.Attribution + `

In HTML / в HTML:

    ` + d.c.AttributionHTML + `

Every JSON record also carries these fields (license, license_url, attribution,
attribution_html), and each record has its own suggested_citation.
`)
}

// group writes n with sep between groups of three digits: 73 414 in Russian (a no-break
// space), 73,414 in English.
func group(n int, sep string) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + sep + s[i:]
	}
	return s
}

// examples are the SQL queries of the README, run by its tests with the sqlite3 command:
// built from the tables, so that pack names no route. A date table with a foreign key
// gives a lookup of a date, a join with the table it refers to, and a count.
func (d *dataset) examples() []string {
	out := []string{"SELECT key, value FROM meta;"}
	for _, t := range d.build.tables {
		if len(t.PrimaryKey) != 1 || t.Columns[t.Index(t.PrimaryKey[0])].Type != table.Date || len(t.ForeignKeys) == 0 || t.Len() == 0 {
			continue
		}
		date := t.Value(t.Len()/2, t.Index("date")).String()
		fk := t.ForeignKeys[0]
		return append(out,
			"SELECT * FROM "+t.Name+" WHERE date = '"+date+"';",
			"SELECT d.date, d."+fk.Column+", r.* FROM "+t.Name+" AS d JOIN "+fk.Table+" AS r ON r."+fk.TableColumn+" = d."+fk.Column+" WHERE d.date = '"+date+"';",
			"SELECT "+fk.Column+", count(*) AS dates FROM "+t.Name+" GROUP BY "+fk.Column+" ORDER BY dates DESC LIMIT 5;",
		)
	}
	return out
}

// ExampleQueries returns the SQL queries of a README: the lines of its ```sql blocks.
func ExampleQueries(readme []byte) []string {
	var out []string
	in := false
	for line := range strings.SplitSeq(string(readme), "\n") {
		switch {
		case line == "```sql":
			in = true
		case line == "```":
			in = false
		case in && strings.TrimSpace(line) != "":
			out = append(out, line)
		}
	}
	return out
}

func (d *dataset) readme() []byte {
	ruNum := func(n int) string { return group(n, "\u00a0") }
	enNum := func(n int) string { return group(n, ",") }
	base := d.base()
	var ru, en, jsonl, jsonlEN strings.Builder
	for _, t := range d.build.tables {
		ru.WriteString("| `" + t.Name + "` | " + t.Russian + " (строк: " + ruNum(t.Len()) + ") |\n")
		en.WriteString("- `" + t.Name + "` — " + t.Description + " (" + enNum(t.Len()) + " rows)\n")
	}
	for _, r := range d.build.dateRoutes {
		jsonl.WriteString("- `" + JSONLName(r.Name) + "` — " + r.Description + " (" + d.downloadURL(JSONLName(r.Name)) + ")\n")
		jsonlEN.WriteString("- `" + JSONLName(r.Name) + "` — " + r.English + ": " + d.downloadURL(JSONLName(r.Name)) + "\n")
	}
	var apiFiles []string
	for _, r := range d.build.otherRoutes {
		apiFiles = append(apiFiles, "`"+strings.TrimPrefix(r.File, manifest.APIDir+"/")+"`")
	}
	sql := "```sql\n" + strings.Join(d.examples(), "\n") + "\n```\n"
	first := ""
	if len(d.build.dateRoutes) > 0 {
		first = JSONLName(d.build.dateRoutes[0].Name)
	}
	firstTable := ""
	if len(d.build.tables) > 0 {
		firstTable = d.build.tables[0].Name
	}
	return []byte(`# ` + d.c.Title + ` — набор данных ` + d.m.APIVersion + ` / dataset ` + d.m.APIVersion + `

Источник / source: ` + d.c.Publisher + `, ` + d.m.SiteURL + ` · API: ` + d.m.APIBase + `
Лицензия / licence: Creative Commons «` + d.c.LicenseName + `» (CC BY 4.0), ` + LicenseURL + `
Даты / dates: ` + d.m.yearsLabel() + `

## По-русски

Данные API «` + d.c.Title + `» для работы без сети: в DuckDB, pandas, Polars, R, SQLite,
Datasette и электронных таблицах.

` + d.c.Disclaimer + `

### Что внутри

Каждая таблица есть в двух форматах: ` + "`" + CSVDir + "/<таблица>.csv` и `" + ParquetDir + "/<таблица>.parquet`" + `, а все вместе — в базе
SQLite ` + "`" + SQLite + "`" + ` (с первичными и внешними ключами и таблицей ` + "`meta`" + `).

| таблица | содержимое |
|---|---|
` + ru.String() + `
Ещё в архиве: ` + "`" + manifest.APIDir + "/`" + ` — ответы маршрутов API без даты в формате JSON, байт в байт такие, какими их отдаёт
сервер (` + strings.Join(apiFiles, ", ") + `); ` + "`datapackage.json`" + ` — описание всех файлов (Frictionless Data
Package 2.0: поля, типы, ключи, размеры, хеши); ` + "`CITATION.cff`" + `; ` + "`LICENSE`" + `; ` + "`SHA256SUMS`" + `.

Записи маршрутов с датой — отдельные файлы JSON Lines (gzip): по одной записи API на строку, в порядке дат,
байт в байт такие, какими их отдаёт сервер.

` + jsonl.String() + `
Ответы API по отдельным датам в архив не входят: ` + "`numerology generate`" + ` воспроизводит их байт в байт.

### Как цитировать

    ` + d.c.Attribution + `

У каждой записи JSON есть поле ` + "`suggested_citation`" + `; для ссылки на весь набор используйте
` + "`CITATION.cff`" + `.

## In English

The Open Numerology Data API for offline use: in DuckDB, pandas, Polars, R, SQLite, Datasette
and spreadsheets. The texts are in Russian.

` + d.c.DisclaimerEN + `

### What is inside

Every table twice, ` + "`" + CSVDir + "/<table>.csv` and `" + ParquetDir + "/<table>.parquet`" + `, and all of them in one SQLite
database, ` + "`" + SQLite + "`" + ` (primary and foreign keys, and a ` + "`meta`" + ` table: version, licence, attribution, source).

` + en.String() + `
Also in the zip: ` + "`" + manifest.APIDir + "/`" + ` — the API's JSON of the routes without a date, the exact bytes the API
serves; ` + "`datapackage.json`" + ` — a Frictionless Data Package 2.0 descriptor of every file (fields, types,
keys, sizes, hashes); ` + "`CITATION.cff`, `LICENSE` (CC BY 4.0 and the attribution wording), `SHA256SUMS`" + `.

The records of each date route are JSON Lines downloads of their own (gzip): one API record a
line, in date order, the exact bytes the API serves.

` + jsonlEN.String() + `
The API's per-date files are not in the dataset: ` + "`numerology generate`" + ` makes them again, byte for byte.

### Examples

DuckDB (Parquet or CSV):

    duckdb -c "SELECT * FROM '` + ParquetDir + `/` + firstTable + `.parquet' LIMIT 5"

pandas:

    import pandas as pd
    df = pd.read_parquet("` + ParquetDir + `/` + firstTable + `.parquet")

SQLite (` + "`sqlite3 " + SQLite + "`" + `) or Datasette (` + "`datasette " + SQLite + "`" + `):

` + sql + `
jq over the JSON Lines:

    gzip -dc ` + first + ` | jq -c 'select(.input.year == 2000) | .input' | head

### How to cite

    ` + d.c.Attribution + `

Each JSON record carries its own ` + "`suggested_citation`" + `; cite the whole dataset with ` + "`CITATION.cff`" + `.

### How to verify

    cd ` + base + ` && sha256sum -c SHA256SUMS

or without extracting: ` + "`numerology verify --archive " + base + Zip + "`" + ` (and ` + "`numerology verify --archive " + first + "`" + `).
Every download is reproducible: packing the same tree again gives byte-identical files.
`)
}
