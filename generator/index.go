package generator

import (
	"github.com/opennumerology/numerology/generator/manifest"
)

// APIIndex is the body of /api/public: a small discovery document.
type APIIndex struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	APIVersion  string       `json:"api_version"`
	SiteURL     string       `json:"site_url"`
	OpenAPI     string       `json:"openapi"`
	Routes      []IndexRoute `json:"routes"`
	RateLimit   string       `json:"rate_limit"`
	License     string       `json:"license"`
	LicenseURL  string       `json:"license_url"`
	Attribution string       `json:"attribution"`
}

// IndexRoute is one route in the discovery document.
type IndexRoute struct {
	Path        string `json:"path"`
	Description string `json:"description"`
	Example     string `json:"example"`
}

// APIIndex builds the discovery document.
func (s *Site) APIIndex() APIIndex {
	return APIIndex{
		Name:        s.Content.Site.Title,
		Description: "Открытый API нумерологии: 12 чисел жизненного пути и матрица судьбы для каждой даты рождения с 01.01.1900 по 31.12.2100.",
		APIVersion:  manifest.APIVersion,
		SiteURL:     s.SiteURL,
		OpenAPI:     s.APIBase + "/openapi.json",
		Routes: []IndexRoute{
			{"/life-path", "Все 12 чисел жизненного пути, кратко", s.APIBase + "/life-path"},
			{"/life-path/{number}", "Одно число жизненного пути: 1–9, 11, 22, 33", s.APIBase + "/life-path/7"},
			{"/matrix/{day}/{month}/{year}", "Матрица судьбы для даты рождения", s.APIBase + "/matrix/15/5/1990"},
		},
		RateLimit:   "60 запросов к /matrix в минуту с одного адреса",
		License:     License,
		LicenseURL:  LicenseURL,
		Attribution: s.Attribution,
	}
}
