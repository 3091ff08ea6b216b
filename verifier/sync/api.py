"""What the law.go.kr Open API offers a sync: its address, the targets a sync knows, the largest
page a list request returns. Plain constants, so `citegen-admin --help` shows them without loading
the client (httpx) or the runner (the database)."""

BASE_URL = "https://www.law.go.kr/DRF"
TARGETS = ("law", "prec", "detc", "abbreviations")
PAGE_SIZE = 100  # the API's largest `display`
