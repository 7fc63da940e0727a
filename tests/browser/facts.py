"""What report.md and summary.md state, as the sentences, table rows and code lines a page must
state too (test_pages.py holds each page against its Markdown with them).

A Markdown line is compared as text: its markup (**, `, backslash escapes, list and heading
marks, the zero-width spaces that let LaTeX break long words) taken away and its white space
collapsed, as the page's visible text is. A table row is compared cell by cell: each of its
cells must be in one of a page row's cells, in the same order (a page's table may have more
columns: the reference's time, a 95% interval); a cell that states nothing ("0", "–", empty)
may be absent. Lines that are a Markdown file's own (its images, the note that gnuplot made no
plot: the page draws its figures itself) are left out."""
import re

ZERO_WIDTH = "\u200b"
NOTHING = {"", "0", "–"}


def norm(text):
    """White space collapsed, zero-width spaces gone."""
    return re.sub(r"\s+", " ", text.replace(ZERO_WIDTH, "")).strip()


def md_text(line):
    """A Markdown line as a reader sees it."""
    line = re.sub(r"^\s*(#+|-|\*)\s+", "", line)
    line = line.replace("**", "").replace("`", "")
    line = re.sub(r"^\*(.*)\*$", r"\1", line.strip())
    line = re.sub(r"\\(.)", r"\1", line)
    return norm(line)


def cell(text):
    """A table cell: a badge on the page is a parenthesis in Markdown ("n2M (slow)")."""
    return norm(text.replace("(", " ").replace(")", " "))


def split_row(line):
    """A Markdown table row's cells (a \\| inside a cell is text)."""
    inner = line.strip()[1:-1]
    return [cell(md_text(c)) for c in re.split(r"(?<!\\)\|", inner)]


def is_separator(line):
    return re.match(r"^\|[\s:|-]+\|$", line.strip()) is not None


def image_follows(src, i):
    """Whether the heading at src[i] introduces a Markdown image (or the note that there is
    none): the page draws that figure itself."""
    for line in src[i + 1:]:
        if line.strip():
            return line.startswith("![") or line.startswith("{{") or "gnuplot" in line or (
                line.startswith("*") and line.rstrip().endswith("*"))
    return False


def md_facts(md):
    """(lines, rows, code) that a Markdown report states."""
    lines, rows, code = [], [], []
    src = md.split("\n")
    fence = None
    for i, line in enumerate(src):
        if fence:
            if line.strip() == fence:
                fence = None
            elif line.strip():
                code.append(norm(line))
            continue
        m = re.match(r"^(`{3,})\s*$", line.strip())
        if m:
            fence = m.group(1)
            continue
        if not line.strip() or line.startswith("![") or "gnuplot" in line:
            continue
        if line.startswith("#") and image_follows(src, i):
            continue
        if line.startswith("|"):
            header = i + 1 < len(src) and is_separator(src[i + 1])
            if not is_separator(line) and not header:
                rows.append(split_row(line))
            continue
        lines.append(md_text(line))
    return lines, rows, code


def row_in(md_cells, page_rows):
    """Whether some page row states the Markdown row's cells, in their order."""
    for page in page_rows:
        k = 0
        ok = True
        for want in md_cells:
            if want in NOTHING:
                continue
            while k < len(page) and want not in page[k]:
                k += 1
            if k == len(page):
                ok = False
                break
        if ok:
            return True
    return False


PAGE_JS = """
for (const d of document.querySelectorAll('details')) d.open = true;
const rows = [...document.querySelectorAll('tr')].map(
    r => [...r.cells].map(c => c.innerText));
return [document.body.innerText, rows];
"""


def missing(md, driver):
    """What the Markdown states that the page open in driver does not: a list of strings."""
    text, page_rows = driver.execute_script(PAGE_JS)
    text = norm(text)
    page_rows = [[cell(c) for c in r] for r in page_rows]
    lines, rows, code = md_facts(md)
    out = ["line: " + l for l in lines if l not in text]
    out += ["row: " + " | ".join(r) for r in rows if not row_in(r, page_rows)]
    out += ["code: " + c for c in code if c not in text]
    return out
