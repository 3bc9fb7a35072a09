FROM python:3.11-slim
WORKDIR /opt/satori-ci
COPY pyproject.toml README.md ./
COPY satori_ci ./satori_ci
COPY entrypoint.py ./
RUN pip install --no-cache-dir .
ENTRYPOINT ["python", "/opt/satori-ci/entrypoint.py"]
