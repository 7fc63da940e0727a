#!/usr/bin/python3
"""The HTML pages in headless Chromium (tests/browser/run.sh prepares them under
$LG_BROWSER_OUT): every page states what its Markdown states (report.md, summary.md: facts.py),
on a screen, at 400 px and printed on A4, where nothing is cut off; the class's page agrees
with gradebook.csv, filters by every status a student has, says who failed each case and links
each student to the similarity evidence; the class's table sorts (mouse and keyboard) and
filters, a row leads to the student's page, which shows no hidden case's id, a hostile
submission's markup reads as text and runs nothing, the pages read without JavaScript and print
without their controls, and no page logs a console error. Screenshots go to
$LG_BROWSER_OUT/screenshots; the class of 300's open and sort times are printed (measured, never
asserted: docs/html.md)."""
import base64
import csv
import glob
import json
import os
import re
import sys
import tempfile
import unittest

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

import facts

OUT = os.environ.get("LG_BROWSER_OUT", "build/tests/browser")
CLASS = os.path.join(OUT, "class", "lab99")
SHOTS = os.path.join(OUT, "screenshots")
HIDDEN_CASE = "nh"  # tests/fixtures/labcpu's hidden case (n=4099)
# tests/fixtures/pages: its class in Spanish and English, and a student's own check.
PAGES = os.path.join(OUT, "pages", "lab97")
PAGES_EN = os.path.join(OUT, "pages-en", "lab97")
PAGES_CHECK = os.path.join(OUT, "pages-check", "lab97")
# A4 portrait less the print stylesheet's margins (210 mm - 2 × 12 mm) at 96 px to the inch.
A4_PX = 703


def url(path):
    return "file://" + os.path.abspath(path)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def results(folder=CLASS):
    """Every graded student's results.json, by id."""
    out = {}
    for path in glob.glob(os.path.join(folder, "*", "results.json")):
        with open(path, encoding="utf-8") as f:
            r = json.load(f)
        out[r["student_id"]] = r
    return out


LAYOUT_JS = """
const W = document.documentElement.clientWidth, bad = [];
if (document.documentElement.scrollWidth > W + 1)
  bad.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + W);
const main = document.querySelector('main').getBoundingClientRect();
for (const t of document.querySelectorAll('main table')) {
  const what = (t.id || t.rows[0].textContent).slice(0, 60);
  if (arguments[0] === 'print') {
    const r = t.getBoundingClientRect();
    if (r.right > main.right + 1 || t.scrollWidth > t.clientWidth + 1)
      bad.push('cut off: ' + what + ' (' + Math.round(r.right) + ' > ' + Math.round(main.right) + ')');
  } else if (!t.closest('.wide')) {
    bad.push('not in a scroll box: ' + what);
  }
}
return bad;
"""


class Pages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        opts = webdriver.ChromeOptions()
        cls.profile = tempfile.TemporaryDirectory(prefix="lg-chromium-")
        for a in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--hide-scrollbars", "--window-size=1280,1000",
                  "--user-data-dir=" + cls.profile.name):
            opts.add_argument(a)
        opts.binary_location = "/usr/bin/chromium"
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        cls.d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
        cls.d.set_page_load_timeout(60)
        cls.results = results()

    @classmethod
    def tearDownClass(cls):
        cls.d.quit()
        cls.profile.cleanup()

    def setUp(self):
        self.d.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        self.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        self.d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def tearDown(self):
        errors = [e for e in self.d.get_log("browser") if e["level"] == "SEVERE"]
        self.assertEqual(errors, [], "console errors")

    # ---- helpers ----

    def open(self, path):
        self.d.get(url(path))
        self.assertIsNone(self.d.execute_script("return window.__pwned"), "injected script ran")

    def shot(self, name):
        height = self.d.execute_script("return document.documentElement.scrollHeight")
        self.d.set_window_size(1280, min(max(height, 600), 8000))
        self.d.save_screenshot(os.path.join(SHOTS, name + ".png"))
        self.d.set_window_size(1280, 1000)

    def rows(self):
        return self.d.find_elements(By.CSS_SELECTOR, "#students tbody tr")

    def visible_rows(self):
        return [r for r in self.rows() if r.is_displayed()]

    def column(self, header):
        heads = [h.text.strip() for h in self.d.find_elements(By.CSS_SELECTOR, "#students thead th")]
        for i, h in enumerate(heads):
            if h.startswith(header):
                return i
        self.fail("no column %r in %r" % (header, heads))

    def keys(self, col):
        return [r.find_elements(By.TAG_NAME, "td")[col].get_attribute("data-v") for r in self.rows()]

    def header_button(self, col):
        return self.d.find_elements(By.CSS_SELECTOR, "#students thead th")[col].find_element(
            By.TAG_NAME, "button")

    def viewport(self, width):
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": 1000, "deviceScaleFactor": 1,
                                "mobile": False})

    def text(self):
        return facts.norm(self.d.find_element(By.TAG_NAME, "body").text)

    def row_of(self, student):
        for r in self.rows():
            if r.find_element(By.TAG_NAME, "td").get_attribute("data-v") == student:
                return r
        self.fail("no row for " + student)

    @staticmethod
    def pairs(*folders):
        """Each page of the folders with the Markdown it renders (report.md, summary.md)."""
        out = []
        for d in folders:
            for md in sorted(glob.glob(os.path.join(d, "*", "report.md"))):
                out.append((md, md[:-2] + "html"))
            if os.path.exists(os.path.join(d, "summary.md")):
                out.append((os.path.join(d, "summary.md"), os.path.join(d, "index.html")))
        return out

    def check_layout(self, media):
        """Nothing cut off: on a screen the page never scrolls sideways and every table scrolls
        in its own box; printed, every table fits the page's width."""
        bad = self.d.execute_script(LAYOUT_JS, media)
        self.assertEqual(bad, [], "%s: %s" % (self.d.current_url, bad))

    # ---- the class ----

    def test_class_lists_every_student(self):
        self.open(os.path.join(CLASS, "index.html"))
        ids = [r.find_element(By.TAG_NAME, "td").get_attribute("data-v") for r in self.rows()]
        self.assertEqual(sorted(ids), sorted(self.results))
        self.assertEqual(self.d.find_element(By.ID, "shown").text, str(len(self.results)))
        # Headings in order: one h1, then h2s, never a level skipped.
        levels = self.d.execute_script(
            "return [...document.querySelectorAll('h1,h2,h3,h4')].map(h => +h.tagName[1])")
        self.assertEqual(levels[0], 1)
        self.assertTrue(all(b - a <= 1 for a, b in zip(levels, levels[1:])), levels)
        self.shot("class")

    def test_sort_by_score_with_the_mouse(self):
        self.open(os.path.join(CLASS, "index.html"))
        col = self.column("Score")
        self.header_button(col).click()
        scores = [float(k) for k in self.keys(col)]
        self.assertEqual(scores, sorted(scores))
        th = self.d.find_elements(By.CSS_SELECTOR, "#students thead th")[col]
        self.assertEqual(th.get_attribute("aria-sort"), "ascending")
        self.header_button(col).click()
        scores = [float(k) for k in self.keys(col)]
        self.assertEqual(scores, sorted(scores, reverse=True))
        self.assertEqual(th.get_attribute("aria-sort"), "descending")
        want = sorted(self.results.values(), key=lambda r: -r["score"])[0]["score"]
        self.assertEqual(scores[0], want)

    def test_sort_by_name_with_the_keyboard(self):
        self.open(os.path.join(CLASS, "index.html"))
        col = self.column("Name")
        button = self.header_button(col)
        button.send_keys(Keys.ENTER)
        names = [r.find_elements(By.TAG_NAME, "td")[col].text for r in self.rows()]
        collated = self.d.execute_script(
            "return arguments[0].slice().sort(new Intl.Collator('en', "
            "{numeric: true, sensitivity: 'base'}).compare)", names)
        self.assertEqual(names, collated)
        button.send_keys(Keys.SPACE)
        names2 = [r.find_elements(By.TAG_NAME, "td")[col].text for r in self.rows()]
        self.assertEqual(names2, list(reversed(collated)))

    def test_filter_by_text_and_status(self):
        self.open(os.path.join(CLASS, "index.html"))
        box = self.d.find_element(By.ID, "filter-text")
        box.send_keys("s0")
        want = [i for i in self.results if i.startswith("s0")]
        self.assertEqual(len(self.visible_rows()), len(want))
        self.assertEqual(self.d.find_element(By.ID, "shown").text, str(len(want)))
        box.clear()
        box.send_keys(Keys.BACKSPACE)
        Select(self.d.find_element(By.ID, "filter-status")).select_by_value("failed")
        failed = [i for i, r in self.results.items()
                  if r["n_fail"] > 0 and r["n_grader_errors"] == 0]
        shown = sorted(r.find_element(By.TAG_NAME, "td").get_attribute("data-v")
                       for r in self.visible_rows())
        self.assertEqual(shown, sorted(failed))
        self.shot("class-filtered")

    def test_row_leads_to_the_student_without_hidden_cases(self):
        self.open(os.path.join(CLASS, "index.html"))
        self.d.find_element(By.LINK_TEXT, "s10").click()
        self.assertTrue(self.d.current_url.endswith("/s10/report.html"), self.d.current_url)
        self.assertIsNone(self.d.execute_script("return window.__pwned"))
        r = self.results["s10"]
        hidden = [c for e in r["exercises"] for v in e["variants"] for c in v["cases"]
                  if c.get("hidden")]
        self.assertTrue(hidden, "the fixture's s10 has a hidden case")
        text = self.d.execute_script("return document.documentElement.textContent")
        html = self.d.page_source
        for c in hidden:
            self.assertIsNone(re.search(r"\b%s\b" % re.escape(c["case_id"]), text), c["case_id"])
            for p in c.get("params", []):
                self.assertNotIn(str(p["value"]), text)
        self.assertNotIn(">%s<" % HIDDEN_CASE, html)
        # ... as counts: s10's one hidden case failed.
        self.assertIn("1 hidden case failed", text)
        self.assertIn("%s / %s" % (r["score"] if r["score"] % 1 else int(r["score"]),
                                   int(r["max_score"])), self.d.title)
        self.shot("student")

    def test_hostile_submission_reads_as_text(self):
        self.open(os.path.join(CLASS, "index.html"))
        row = [r for r in self.rows() if r.find_element(By.TAG_NAME, "td").get_attribute("data-v") == "s90"]
        self.assertEqual(len(row), 1)
        self.assertIn("<script>window.__pwned='row'</script>", row[0].text)
        self.assertEqual(self.d.find_elements(By.CSS_SELECTOR, "#students img, main script"), [])
        self.open(os.path.join(CLASS, "s90", "report.html"))
        first = self.d.find_element(By.CSS_SELECTOR, "pre").text
        self.assertIn("<script>window.__pwned = 'compiler';</script>", first)
        self.assertEqual(self.d.find_elements(By.CSS_SELECTOR, "img, script"), [])
        self.assertIn("onerror", self.d.find_element(By.TAG_NAME, "h1").find_element(
            By.XPATH, "following-sibling::p").text)

    def test_analyses(self):
        self.open(os.path.join(CLASS, "index.html"))
        sim = self.d.find_element(By.ID, "similarity")
        self.assertTrue(sim.is_displayed())
        links = [a.get_attribute("href") for a in
                 self.d.find_elements(By.CSS_SELECTOR, "#similarity ~ .card a")]
        self.assertTrue(any(h.endswith("/s04/report.html") for h in links), links)
        frag = self.d.find_element(By.CSS_SELECTOR, ".card details pre")
        self.assertIn("</pre><script>", frag.get_attribute("textContent"))
        body = self.d.find_element(By.TAG_NAME, "main").text
        self.assertIn("Mutation score: 93.8%", body)
        self.assertIn("m0007", body)
        # s01 is in one group and two pairs: its flag counts three.
        col = self.column("Flags")
        s01 = [r for r in self.rows() if r.find_element(By.TAG_NAME, "td").get_attribute("data-v") == "s01"][0]
        self.assertIn("3", s01.find_elements(By.TAG_NAME, "td")[col].text)

    def test_reads_without_javascript(self):
        self.d.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        self.d.get(url(os.path.join(CLASS, "index.html")))
        self.assertEqual(len(self.visible_rows()), len(self.results))
        self.assertFalse(self.d.find_element(By.ID, "controls").is_displayed())
        self.assertEqual(self.d.find_elements(By.CSS_SELECTOR, "#students thead button"), [])
        self.shot("class-nojs")

    def test_print_stylesheet(self):
        self.open(os.path.join(CLASS, "index.html"))
        self.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        self.assertFalse(self.d.find_element(By.ID, "controls").is_displayed())
        self.shot("class-print")
        self.open(os.path.join(CLASS, "s08", "report.html"))
        self.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        self.shot("student-print")

    def test_spanish(self):
        self.open(os.path.join(OUT, "class-es", "lab99", "index.html"))
        self.assertEqual(self.d.find_element(By.TAG_NAME, "html").get_attribute("lang"), "es")
        self.assertTrue(self.d.find_element(By.ID, "students-heading").text.startswith("Estudiantes"))
        self.open(os.path.join(OUT, "class-es", "lab99", "s08", "report.html"))
        self.assertIn("Resumen de la nota", self.d.find_element(By.ID, "summary").text)
        self.shot("student-es")

    # ---- every page states what its Markdown states (the pages' fixture: every kind of case) ----

    def test_each_page_states_what_its_markdown_states(self):
        pairs = self.pairs(PAGES, PAGES_EN, PAGES_CHECK, CLASS, os.path.join(OUT, "class-es", "lab99"))
        self.assertGreaterEqual(len(pairs), 7 + 7 + 1 + 8 + 8)
        for md, html in pairs:
            with self.subTest(page=html):
                self.open(html)
                self.assertEqual(facts.missing(read(md), self.d), [], html)

    def test_at_400_px(self):
        """A phone: the same facts, every table in a box of its own, the page never wider."""
        self.viewport(400)
        for md, html in self.pairs(PAGES, PAGES_CHECK) + [(os.path.join(CLASS, "summary.md"),
                                                           os.path.join(CLASS, "index.html"))]:
            with self.subTest(page=html):
                self.open(html)
                self.assertEqual(facts.missing(read(md), self.d), [], html)
                self.check_layout("screen")
        self.open(os.path.join(PAGES, "s06", "report.html"))
        self.d.save_screenshot(os.path.join(SHOTS, "pages-student-400.png"))
        self.open(os.path.join(PAGES, "index.html"))
        self.d.save_screenshot(os.path.join(SHOTS, "pages-class-400.png"))

    def test_printed_on_a4(self):
        """Printed: the same facts, no control, every table as wide as the page at most."""
        self.viewport(A4_PX)
        for md, html in self.pairs(PAGES, PAGES_CHECK) + [(os.path.join(CLASS, "summary.md"),
                                                           os.path.join(CLASS, "index.html"))]:
            with self.subTest(page=html):
                self.open(html)
                self.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
                self.assertEqual(facts.missing(read(md), self.d), [], html)
                self.check_layout("print")
                for c in self.d.find_elements(By.CSS_SELECTOR, "#controls, .noprint"):
                    self.assertFalse(c.is_displayed())
        # A real print of the class and of a student, on A4, for a person to look at.
        for name, html in (("pages-class", os.path.join(PAGES, "index.html")),
                           ("pages-student", os.path.join(PAGES, "s06", "report.html"))):
            self.open(html)
            pdf = self.d.execute_cdp_cmd("Page.printToPDF", {"preferCSSPageSize": True})
            with open(os.path.join(SHOTS, name + ".pdf"), "wb") as f:
                f.write(base64.b64decode(pdf["data"]))

    def test_student_pages_state_every_kind_of_case(self):
        # A GPU variant not run (XX) is no grade yet, and costs no points; WA with NaN is NaN.
        self.open(os.path.join(PAGES, "s03", "report.html"))
        text = self.text()
        self.assertIn("Todavía no es una nota: el corrector falló en 4 casos (XX), no la entrega",
                      text)
        self.assertIn("errores del corrector: 4.", text)
        self.assertNotIn("Nota: ", text)
        lost = self.d.find_element(By.CSS_SELECTOR, "#lost + ul").text
        self.assertNotIn("error del corrector", lost)
        self.assertIn("valores incorrectos", lost)
        cells = [c.text for c in self.d.find_elements(By.CSS_SELECTOR, ".card table td")]
        self.assertIn("NaN, NaN", cells)
        self.assertNotIn("0, 0", cells)
        # What was not graded adds up to its heading, and says why in the page's language.
        self.assertIn("variante de GPU no ejecutada en esta máquina", text)
        self.assert_parts_add_up()
        # A correct case not timed says so, and why.
        self.open(os.path.join(PAGES, "s05", "report.html"))
        text = self.text()
        self.assertIn("Todavía no es una nota: 3 casos correctos no se pudieron medir", text)
        self.assertIn("correcto, sin medir", [c.text for c in self.d.find_elements(
            By.CSS_SELECTOR, "table.cases td")])
        self.assertIn("sin medir: la máquina estaba ocupada (su turno lo tenía grader (pid 4242))",
                      text)
        # Both, counted apart: 4 XX (the score line's grader errors) and 1 case not timed.
        self.open(os.path.join(PAGES, "s06", "report.html"))
        text = self.text()
        self.assertIn("el corrector falló en 4 casos (XX), no la entrega, y 1 caso correcto no se "
                      "pudo medir", text)
        self.assertIn("errores del corrector: 4.", text)
        # A hidden case is a count, once however many variants run it; never its id or size.
        self.assertIn("scale / cpu: 1 caso oculto fallido", text)
        self.assertIn("Casos ocultos: 2, cada uno en todas las variantes de su ejercicio: 1 de 3 "
                      "ejecuciones correctas", text)
        for student in ("s03", "s06"):
            self.open(os.path.join(PAGES, student, "report.html"))
            page = self.d.execute_script("return document.documentElement.textContent")
            for secret in ("nh", "nd", "777", "4099"):
                self.assertIsNone(re.search(r"\b%s\b" % secret, page), (student, secret))
            # One language, one form of address.
            for english in ("cases ", "case :", "hidden", "points", "Lab ", "not run",
                            "grader error", "no usable CUDA device", "usted"):
                self.assertNotIn(english, self.text(), (student, english))
        # A student's own check: the slow, hidden and GPU cases and the speed points not
        # graded here, their parts adding up.
        self.open(os.path.join(PAGES_CHECK, "s07", "report.html"))
        text = self.text()
        self.assertIn("Sin corregir aquí (9.33 puntos)", text)
        self.assertIn("2 casos ocultos, cada uno en todas las variantes de su ejercicio "
                      "(3 ejecuciones) (3.33 puntos)", text)
        self.assertIn("2 casos lentos sin ejecutar (2 puntos)", text)
        self.assertIn("puntos de rendimiento de scale (2 puntos)", text)
        self.assert_parts_add_up()
        self.shot("pages-check")
        # A compile error: its first error above the whole output.
        self.open(os.path.join(PAGES, "s04", "report.html"))
        self.assertIn("expected", self.d.find_element(By.CSS_SELECTOR, "section pre").text)

    def assert_parts_add_up(self):
        head = self.d.find_element(By.ID, "not-graded").text
        total = float(re.search(r"\(([\d.]+) puntos?\)", head).group(1))
        items = self.d.find_element(By.CSS_SELECTOR, "#not-graded + ul").find_elements(
            By.TAG_NAME, "li")
        parts = [float(re.search(r"\(([\d.]+) puntos?\)", li.text).group(1)) for li in items]
        self.assertAlmostEqual(sum(parts), total, places=6)

    def test_class_page_agrees_with_the_gradebook(self):
        self.open(os.path.join(PAGES, "index.html"))
        rs = results(PAGES)
        score = self.column("Nota")
        with open(os.path.join(PAGES, "gradebook.csv"), encoding="utf-8") as f:
            book = list(csv.DictReader(f))
        self.assertEqual(len(book), len(rs))
        for line in book:
            cells = [c.text for c in self.row_of(line["student_id"]).find_elements(By.TAG_NAME, "td")]
            if line["total"]:
                self.assertTrue(cells[score].startswith("%s / %s" % (line["total"], line["max"])),
                                (line, cells[score]))
                self.assertEqual(cells[score + 1], line["scale"])
            else:
                self.assertEqual(cells[score], "sin nota todavía (%s)" % line["status"], line)
                self.assertEqual(cells[score + 1], "–")
        # A compile error and wrong values in their rows, by verdict.
        self.assertIn("CE ×3", self.row_of("s04").text)
        self.assertIn("WA ×4", self.row_of("s03").text)
        # Every status a student has filters them: not only the first one.
        want = {"failed": [i for i, r in rs.items() if r["n_fail"] > 0],
                "grader": [i for i, r in rs.items() if r["n_grader_errors"] > 0],
                "not-timed": [i for i, r in rs.items() if r["n_not_timed"] > 0],
                "ok": [l["student_id"] for l in book if l["total"] and l["student_id"] in
                       [i for i, r in rs.items() if r["n_fail"] == 0 and r["n_skipped"] == 0]]}
        self.assertEqual(sorted(want["failed"]), ["s03", "s04", "s06"])
        self.assertEqual(sorted(want["not-timed"]), ["s05", "s06"])
        for status, ids in want.items():
            Select(self.d.find_element(By.ID, "filter-status")).select_by_value(status)
            shown = sorted(r.find_element(By.TAG_NAME, "td").get_attribute("data-v")
                           for r in self.visible_rows())
            self.assertEqual(shown, sorted(ids), status)
            self.assertEqual(self.d.find_element(By.ID, "shown").text, str(len(ids)))
        # No grade yet sorts below every grade.
        Select(self.d.find_element(By.ID, "filter-status")).select_by_value("")
        self.header_button(score).click()
        first = [r.find_element(By.TAG_NAME, "td").get_attribute("data-v") for r in self.rows()]
        self.assertEqual(sorted(first[:3]), ["s03", "s05", "s06"])
        self.shot("pages-class")

    def test_who_failed_each_case(self):
        self.open(os.path.join(PAGES, "index.html"))
        rs = results(PAGES)
        checked = 0
        for h3 in self.d.find_elements(By.CSS_SELECTOR, "h3[id^='ex-']"):
            ex = h3.get_attribute("id")[3:]
            table = h3.find_element(By.XPATH, "following-sibling::div[contains(@class,'wide')][1]")
            for row in table.find_elements(By.CSS_SELECTOR, "tbody tr"):
                cells = row.find_elements(By.TAG_NAME, "td")
                variant, case = cells[0].text, cells[1].text.split()[0]
                failed = sorted(i for i, r in rs.items() for e in r["exercises"]
                                if e["exercise_id"] == ex for v in e["variants"]
                                if v["variant_id"] == variant for c in v["cases"]
                                if c["case_id"] == case and c["verdict"] not in ("OK", "SK", "XX"))
                who = cells[-1].find_elements(By.TAG_NAME, "a")
                self.assertEqual([a.text for a in who], failed, (ex, variant, case))
                for a in who:
                    self.assertTrue(a.get_attribute("href").endswith("/%s/report.html" % a.text))
                checked += 1
                if (ex, variant, case) == ("scale", "cpu", "nh"):
                    self.assertEqual(failed, ["s03", "s06"])  # the hidden case, in full
        self.assertEqual(checked, 8 + 3)

    def test_rows_link_to_the_similarity_evidence(self):
        for folder, count in ((PAGES, {"s01": 2, "s02": 2}), (CLASS, {"s01": 3})):
            self.open(os.path.join(folder, "index.html"))
            for r in self.rows():
                sid = r.find_element(By.TAG_NAME, "td").get_attribute("data-v")
                links = [a for a in r.find_elements(By.TAG_NAME, "a")
                         if "similarity.html" in a.get_attribute("href")]
                self.assertEqual(len(links), 1, sid)
                anchor = re.sub(r"[^A-Za-z0-9.-]", lambda m: "_%02X" % ord(m.group(0)), sid)
                self.assertTrue(links[0].get_attribute("href").endswith("similarity.html#sub-" + anchor))
                if sid in count:
                    self.assertIn("×%d" % count[sid], links[0].text)
        # Without a similarity check, no link.
        self.open(os.path.join(OUT, "big", "lab99", "index.html"))
        self.assertEqual(self.d.find_elements(By.CSS_SELECTOR, "#students a[href*='similarity']"), [])

    def test_class_figure_tooltips(self):
        self.open(os.path.join(PAGES, "index.html"))
        rs = results(PAGES)
        titles = self.d.execute_script(
            "return [...document.querySelectorAll('#speedups ~ figure svg title')]"
            ".map(t => t.textContent)")
        points = [t for t in titles if re.match(r"^\S+, \w+/\w+: ", t)]
        self.assertGreater(len(points), 10)
        for t in points:
            m = re.match(r"^(\S+), (\w+)/(\w+): (\d+\.\d\d)x$", t)
            self.assertIsNotNone(m, t)
            self.assertIn(m.group(1), list(rs) + ["mediana"], t)

    def test_class_of_300(self):
        self.open(os.path.join(OUT, "big", "lab99", "index.html"))
        self.assertEqual(len(self.rows()), 300)
        loaded = self.d.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "return [n.domContentLoadedEventEnd, n.loadEventEnd]")
        col = self.column("Score")
        took = self.d.execute_script(
            "const b = document.querySelectorAll('#students thead th')[arguments[0]]"
            ".querySelector('button'); const t = performance.now(); b.click();"
            "document.body.offsetHeight; return performance.now() - t", col)
        scores = [float(k) for k in self.keys(col)]
        self.assertEqual(scores, sorted(scores))
        filtered = self.d.execute_script(
            "const i = document.getElementById('filter-text'); const t = performance.now();"
            "i.value = 'c29'; i.dispatchEvent(new Event('input')); document.body.offsetHeight;"
            "return [performance.now() - t, document.getElementById('shown').textContent]")
        self.assertEqual(filtered[1], "10")  # c290 to c299
        self.assertEqual(len(self.visible_rows()), 10)
        print("\nbrowser: class of 300: opened in %.0f ms (DOM ready %.0f ms), sorted in %.1f ms,"
              " filtered in %.1f ms; %d bytes"
              % (loaded[1], loaded[0], took, filtered[0],
                 os.path.getsize(os.path.join(OUT, "big", "lab99", "index.html"))),
              file=sys.stderr)


if __name__ == "__main__":
    os.makedirs(SHOTS, exist_ok=True)
    result = unittest.main(exit=False, verbosity=1).result
    # A test that failed for several pages (subTest) is one failed test.
    failed = len({getattr(t, "test_case", t).id() for t, _ in result.failures + result.errors})
    print("browser: %d passed, %d failed" % (result.testsRun - failed, failed))
    sys.exit(1 if failed else 0)
