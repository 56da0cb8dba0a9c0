package pack

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/contract"
)

// Document file names inside the archives.
const (
	DataPackageFile = "datapackage.json"
	CitationFile    = "CITATION.cff"
	LicenseFile     = "LICENSE"
	ReadmeFile      = "README.md"
	SumsFile        = "SHA256SUMS"
)

// License identifiers of the data (SPDX and Open Definition use the same one).
const (
	LicenseID    = "CC-BY-4.0"
	LicenseTitle = "Creative Commons Attribution 4.0 International"
	LicenseURL   = "https://creativecommons.org/licenses/by/4.0/"
)

// DataPackage is datapackage.json: a Frictionless (Tabular) Data Package descriptor.
type DataPackage struct {
	Profile      string        `json:"profile"`
	Name         string        `json:"name"`
	Title        string        `json:"title"`
	Description  string        `json:"description"`
	Version      string        `json:"version"`
	Homepage     string        `json:"homepage"`
	Keywords     []string      `json:"keywords"`
	Licenses     []License     `json:"licenses"`
	Sources      []Source      `json:"sources"`
	Contributors []Contributor `json:"contributors"`
	Resources    []Resource    `json:"resources"`
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
	Title string `json:"title"`
	Path  string `json:"path,omitempty"`
	Role  string `json:"role"`
}

// Resource is one CSV table of the package.
type Resource struct {
	Profile     string  `json:"profile"`
	Name        string  `json:"name"`
	Path        string  `json:"path"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Format      string  `json:"format"`
	Mediatype   string  `json:"mediatype"`
	Encoding    string  `json:"encoding"`
	Bytes       int64   `json:"bytes"`
	Hash        string  `json:"hash"` // "sha256:<hex>"
	Dialect     Dialect `json:"dialect"`
	Schema      Schema  `json:"schema"`
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
	Format      string       `json:"format,omitempty"`
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
	Fields    string       `json:"fields"`
	Reference ForeignTable `json:"reference"`
}

// ForeignTable is the target of a ForeignKey.
type ForeignTable struct {
	Resource string `json:"resource"`
	Fields   string `json:"fields"`
}

// HashPrefix starts every Resource.Hash: Frictionless names a non-MD5 algorithm this way.
const HashPrefix = "sha256:"

type file struct {
	name string
	body []byte
}

// buildFiles renders the tables and documents, and SHA256SUMS over them and the tree files.
func buildFiles(m *manifest.Manifest, src []manifest.File, t *tables, opts Options) ([]file, error) {
	csvs := t.csvs()
	d := &docs{m: m, t: t, opts: opts, base: BaseName(m.APIVersion)}
	pkg, err := d.dataPackage(csvs)
	if err != nil {
		return nil, err
	}
	files := append(csvs,
		file{DataPackageFile, pkg},
		file{CitationFile, d.citation()},
		file{LicenseFile, d.license()},
		file{ReadmeFile, d.readme(len(src))},
	)
	type sum struct{ name, hex string }
	sums := make([]sum, 0, len(src)+len(files))
	for _, f := range src {
		sums = append(sums, sum{f.Path, f.SHA256})
	}
	for _, f := range files {
		h := sha256.Sum256(f.body)
		sums = append(sums, sum{f.name, hex.EncodeToString(h[:])})
	}
	slices.SortFunc(sums, func(a, b sum) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	b.Grow(len(sums) * 110)
	for _, s := range sums {
		b.WriteString(s.hex + "  " + s.name + "\n")
	}
	return append(files, file{SumsFile, []byte(b.String())}), nil
}

type docs struct {
	m    *manifest.Manifest
	t    *tables
	opts Options
	base string
}

// field is the Table Schema field of a table's column; a date column is bounded by the
// first and last date of the table.
func field(f generator.TableField, first, last string) Field {
	c := &Constraints{Required: true, Unique: f.Unique}
	out := Field{Name: f.Name, Type: f.Type, Description: f.Description, Constraints: c}
	switch {
	case f.Type == "date":
		out.Format, c.Minimum, c.Maximum = "default", first, last
	case f.Enum != nil:
		c.Enum = f.Enum
	case f.Min != 0 || f.Max != 0:
		c.Minimum, c.Maximum = f.Min, f.Max
	}
	return out
}

func (d *docs) dataPackage(csvs []file) ([]byte, error) {
	type resource struct {
		title, desc string
		schema      Schema
	}
	schemas := map[string]resource{}
	var titles []string
	for _, t := range d.t.done {
		first, last := t.dateRange()
		sch := Schema{PrimaryKey: t.Table.PrimaryKey}
		for _, f := range t.Table.Fields {
			sch.Fields = append(sch.Fields, field(f, first, last))
		}
		for _, fk := range t.Table.ForeignKeys {
			sch.ForeignKeys = append(sch.ForeignKeys, ForeignKey{Fields: fk.Field, Reference: ForeignTable{Resource: fk.Table, Fields: fk.TableField}})
		}
		schemas[t.Table.File()] = resource{t.Table.Title, t.Table.Description, sch}
		titles = append(titles, strings.ToLower(t.Table.Title[:1])+t.Table.Title[1:])
	}
	pkg := DataPackage{
		Profile:      "tabular-data-package",
		Name:         contract.DatasetName,
		Title:        d.opts.Title + " — dataset " + d.m.APIVersion,
		Description:  "The complete Open Numerology Data API " + d.m.APIVersion + " for offline use: " + strings.Join(titles, "; ") + " as CSV tables, and every JSON response of the API under api/public/. Texts are in Russian.",
		Version:      d.m.APIVersion,
		Homepage:     d.m.SiteURL,
		Keywords:     []string{"numerology", "destiny matrix", "life path number", "open data", "нумерология"},
		Licenses:     []License{{Name: LicenseID, Path: LicenseURL, Title: LicenseTitle}},
		Sources:      []Source{{Title: "API «" + d.opts.Title + "»", Path: d.m.APIBase}},
		Contributors: []Contributor{{Title: d.opts.Publisher, Path: d.m.SiteURL, Role: "publisher"}},
	}
	for _, f := range csvs {
		s := schemas[f.name]
		h := sha256.Sum256(f.body)
		pkg.Resources = append(pkg.Resources, Resource{
			Profile: "tabular-data-resource", Name: strings.TrimSuffix(f.name, ".csv"), Path: f.name,
			Title: s.title, Description: s.desc,
			Format: "csv", Mediatype: "text/csv", Encoding: "utf-8",
			Bytes: int64(len(f.body)), Hash: HashPrefix + hex.EncodeToString(h[:]),
			Dialect: Dialect{Delimiter: ",", LineTerminator: "\n", QuoteChar: `"`, DoubleQuote: true, Header: true},
			Schema:  s.schema,
		})
	}
	b, err := json.MarshalIndentWithOption(pkg, "", "  ", json.DisableHTMLEscape())
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", DataPackageFile, err)
	}
	return append(b, '\n'), nil
}

// yq quotes s as a YAML double-quoted scalar (a JSON string is one).
func yq(s string) string {
	b, _ := json.MarshalWithOption(s, json.DisableHTMLEscape())
	return string(b)
}

func (d *docs) citation() []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Citation File Format: https://citation-file-format.github.io/\n")
	w("cff-version: 1.2.0\n")
	w("message: %s\n", yq("If you use this dataset, please cite it as below. Если вы используете эти данные, укажите источник так, как указано ниже."))
	w("type: dataset\n")
	w("title: %s\n", yq(d.opts.Title+" — dataset "+d.m.APIVersion))
	first, last := d.m.Years[0], d.m.Years[len(d.m.Years)-1]
	w("abstract: %s\n", yq(fmt.Sprintf("The destiny matrix of every birth date from 01.01.%04d to 31.12.%04d, the 22 arcana and the 12 life path numbers, as CSV tables and the JSON responses of the API at %s (texts in Russian).",
		first, last, d.m.APIBase)))
	w("authors:\n  - name: %s\n    website: %s\n", yq(d.opts.Publisher), yq(d.m.SiteURL))
	w("version: %s\n", yq(d.m.APIVersion))
	w("license: %s\n", LicenseID)
	w("url: %s\n", yq(d.m.SiteURL))
	w("repository-artifact: %s\n", yq(d.m.SiteURL+"/"+manifest.DownloadsDir+"/"+d.base+TarGz))
	w("keywords:\n")
	for _, k := range []string{"numerology", "destiny matrix", "life path number", "open data"} {
		w("  - %s\n", yq(k))
	}
	return []byte(b.String())
}

func (d *docs) license() []byte {
	r := d.t.record
	return []byte(d.opts.Title + ` — dataset ` + d.m.APIVersion + `
Copyright (c) ` + d.opts.Publisher + ` (` + d.m.SiteURL + `)

This dataset is licensed under the ` + LicenseTitle + ` licence (CC BY 4.0).
Licence deed:  ` + LicenseURL + `
Legal code:    ` + LicenseURL + `legalcode

You are free to share (copy and redistribute the material in any medium or format) and to
adapt it (remix, transform and build upon it) for any purpose, even commercially, under the
following terms: you must give appropriate credit, provide a link to the licence and indicate
if changes were made; you may not apply legal terms or technological measures that legally
restrict others from doing anything the licence permits.

Набор данных распространяется по лицензии Creative Commons «` + d.opts.LicenseName + `»
(CC BY 4.0). Данные можно копировать, распространять и перерабатывать для любых целей, в том
числе коммерческих, при условии указания источника, ссылки на лицензию и отметки о внесённых
изменениях.

Attribution wording / Как указывать источник:

    ` + r.Attribution + `

In HTML / в HTML:

    ` + r.AttributionHTML + `

Every JSON record also carries these fields (license, license_url, attribution,
attribution_html), and each record has its own suggested_citation.
`)
}

func (d *docs) readme(jsonFiles int) []byte {
	r := d.t.record
	// Russian groups thousands with a non-breaking space (73 414), English with a comma.
	ruNum := generator.GroupThousands
	enNum := func(n int) string { return strings.ReplaceAll(ruNum(n), "\u00a0", ",") }
	tgz, zip := d.base+TarGz, d.base+Zip
	var ru, en strings.Builder
	for _, t := range d.t.done {
		ru.WriteString("| `" + t.Table.File() + "` | " + t.Table.Russian + " (" + ruNum(len(t.rows)) + " строк) |\n")
		en.WriteString("- `" + t.Table.File() + "` — " + t.Table.Description + " (" + enNum(len(t.rows)) + " rows)\n")
	}
	var files []string
	for _, rt := range generator.Routes() {
		files = append(files, "`"+strings.TrimPrefix(rt.File, manifest.APIDir+"/")+"`")
	}
	return []byte(`# ` + d.opts.Title + ` — набор данных ` + d.m.APIVersion + ` / dataset ` + d.m.APIVersion + `

Источник / source: ` + d.opts.Publisher + `, ` + d.m.SiteURL + ` · API: ` + d.m.APIBase + `
Лицензия / licence: Creative Commons «` + d.opts.LicenseName + `» (CC BY 4.0), ` + LicenseURL + `

## По-русски

Полная копия API «` + d.opts.Title + `» для работы без сети: в блокнотах, таблицах и
собственных приложениях.

` + d.opts.Disclaimer + `

### Что внутри

| файл | содержимое |
|---|---|
` + ru.String() + `| ` + "`" + manifest.APIDir + "/`" + ` | все ответы API в формате JSON (` + ruNum(jsonFiles) + ` файлов), байт в байт как их отдаёт сервер: ` + strings.Join(files, ", ") + `, ` + "`errors/`" + ` |
| ` + "`datapackage.json`" + ` | описание таблиц в формате Frictionless Data Package: поля, типы, размеры, хеши |
| ` + "`CITATION.cff`" + ` | как цитировать (Citation File Format 1.2.0) |
| ` + "`LICENSE`" + ` | лицензия Creative Commons «` + d.opts.LicenseName + `» (CC BY 4.0) и формулировка атрибуции |
| ` + "`SHA256SUMS`" + ` | SHA-256 каждого файла архива |

CSV: UTF-8 без BOM, разделитель — запятая, первая строка — заголовок. В Excel открывайте через
«Данные → Из текстового/CSV-файла» с кодировкой UTF-8.

### Как цитировать

    ` + r.Attribution + `

У каждой записи JSON есть поле ` + "`suggested_citation`" + `; для ссылки на весь набор используйте
` + "`CITATION.cff`" + `.

### Как проверить

    cd ` + d.base + ` && sha256sum -c SHA256SUMS

или, не распаковывая: ` + "`numerology verify --archive " + tgz + "`" + `.

## In English

A complete copy of the Open Numerology Data API for offline use in notebooks, spreadsheets
and your own applications. The texts are in Russian.

` + d.opts.DisclaimerEN + `

### What is inside

` + en.String() + `- ` + "`" + manifest.APIDir + "/`" + ` — every JSON response of the API (` + enNum(jsonFiles) + ` files), the exact bytes the API serves.
- ` + "`datapackage.json`" + ` — a Frictionless Data Package descriptor: the tables' fields, types, sizes and hashes (load it with frictionless-py, ` + "`datapackage` in R" + `, or read the CSVs directly).
- ` + "`CITATION.cff`, `LICENSE` (CC BY 4.0 and the attribution wording), `SHA256SUMS`" + `.

### How to cite

    ` + r.Attribution + `

Each JSON record carries its own ` + "`suggested_citation`" + `; cite the whole dataset with ` + "`CITATION.cff`" + `.

### How to verify

    cd ` + d.base + ` && sha256sum -c SHA256SUMS

or without extracting: ` + "`numerology verify --archive " + tgz + "`" + ` (also works on ` + "`" + zip + "`" + `).
The archives are reproducible: packing the same tree again gives byte-identical files.
`)
}
