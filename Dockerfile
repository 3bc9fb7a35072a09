# The satori-ci GitHub Action: Python, Node and Newman from the lockfiles the tests use.
FROM python:3.11-slim

RUN apt-get update \
    && apt-get install -y --no-install-recommends nodejs npm git \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/satori-ci
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY requirements.txt pyproject.toml README.md ./
RUN pip install --no-cache-dir -r requirements.txt
COPY satori_ci ./satori_ci
COPY entrypoint.py ./
RUN pip install --no-cache-dir --no-deps .

# the workspace belongs to another user than the container's root
RUN git config --system --add safe.directory '*'
ENV SATORI_NEWMAN=/opt/satori-ci/node_modules/.bin/newman
# Newman's first run keeps what V8 compiled of it beside it (node_modules/.cache/satori-ci): every run starts from it
RUN cd /tmp && satori-ci demo --runner newman > /dev/null \
    && test -s /opt/satori-ci/node_modules/.cache/satori-ci/newman-code-cache.bin
ENTRYPOINT ["python", "/opt/satori-ci/entrypoint.py"]
