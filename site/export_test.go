package site

// RefPage is a chapter's per-page work as book.renderChapter does it, done
// by the implementation first written (ref_test.go), for the tests of
// package site_test.
func RefPage(body []byte, title, slug string, has map[string]bool, pageOf map[string]string) ([]byte, []Heading, []Section) {
	body, toc := refDecorate(refLinkData(body, has))
	body = refLinkExperiments(body, slug+".html", pageOf)
	return body, toc, refSections(title, slug, body, toc)
}
