package generator

import (
	"html"
	"reflect"
	"regexp"
	"strings"

	"github.com/opennumerology/numerology/content"
)

// The texts of the content are set in the same typography as the pages (typography.go),
// with the no-break space U+00A0 itself instead of &nbsp;: a short word holds on to the
// word after it, a dash to the word before it, «же», «ли», «бы» to the word before them;
// and, as the share cards break lines, a number holds on to the word after it («1999 год»,
// «22 аркана»), which the pages' templates write with &nbsp; by hand.
// The records carry the texts so, and an app that shows them gets the lines a Russian
// reader expects without typesetting them itself; one that wants plain text replaces
// U+00A0 by a space. The content's files stay plain, as written, and a text written with
// U+00A0 of its own («Пётр I») keeps it.
//
// The site's settings (site.yaml) are left as written: the attribution and the citations are
// copied into other documents verbatim, and the disclaimer is shown in plain-text documents
// (OpenAPI, llms.txt, the dataset's README).

// typesetContent sets every text of c but the site's settings in the typography above: every
// field of the content, so a new kind of content is typeset without a line here.
func typesetContent(c *content.Content) {
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		if v.Type().Field(i).Name != "Site" {
			typesetValue(v.Field(i))
		}
	}
}

// typesetValue typesets every string reachable from v through fields, elements and map
// values; keys, numbers and the like stay as they are (a key or a date holds no space).
func typesetValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(typesetPlain(v.String()))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			typesetValue(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			typesetValue(v.Index(i))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			typesetValue(v.Elem())
		}
	case reflect.Map:
		// A map's values cannot be set in place: each is copied, typeset and put back.
		iter := v.MapRange()
		for iter.Next() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(iter.Value())
			typesetValue(e)
			v.SetMapIndex(iter.Key(), e)
		}
	}
}

// numberWordRe is a number and the word after it, one plain space between.
var numberWordRe = regexp.MustCompile(`(\d) (\pL)`)

// typesetPlain sets a plain text (not HTML) in the pages' typography, with U+00A0 for the
// no-break spaces. It is typesetText on the escaped text, so the two cannot disagree, and
// then the number rule above.
func typesetPlain(s string) string {
	if !strings.Contains(s, " ") {
		return s
	}
	s = html.UnescapeString(string(typesetText([]byte(html.EscapeString(s)))))
	return numberWordRe.ReplaceAllString(s, "$1\u00a0$2")
}
