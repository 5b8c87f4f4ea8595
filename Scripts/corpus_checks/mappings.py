"""mapping-read and mapping-translate: every `.xcmappingmodel` in the corpus, through `instar mapping`.

mapping-read       `instar mapping <folder> --model <bundle> --format json` exits 0 for one bundle of the
                   mapping model's repository: the file is read and matched to a pair of that bundle's
                   versions by entity hashes (as Core Data matches it). A mapping model that no bundle's
                   versions fit is a failure, with instar's closest pair.
mapping-translate  every expression of the matched mapping model (each filter, attribute and relationship
                   value) is SQL, a relationship through another entity mapping, or a named hook with its
                   reason: nothing is dropped. The detail counts each kind and lists the hook reasons.
"""

import os
from pathlib import Path

from .common import CHECK_MAPPING_READ, CHECK_MAPPING_TRANSLATE, run_instar


def discover(corpus):
    """(repo folder name, .xcmappingmodel path) for every mapping model folder under the corpus."""
    found = []
    for repo_dir in sorted(p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        for dirpath, dirnames, _ in os.walk(repo_dir):
            dirnames.sort()
            if dirpath.endswith(".xcmappingmodel"):
                found.append((repo_dir.name, Path(dirpath)))
                dirnames[:] = []
    return found


def translation_counts(report):
    """(translated, relationships, hooks, dropped, reasons) over a report's expressions."""
    translated = relationships = hooks = dropped = 0
    reasons = {}
    for entity in report.get("entities", []):
        for item in ([entity["filter"]] if entity.get("filter") else []) + entity.get("attributes", []) \
                + entity.get("relationships", []):
            if item.get("expression") is None:
                continue  # left at its default: nothing to compute
            if item.get("sql") is not None:
                translated += 1
            elif item.get("relationshipMapping") is not None:
                relationships += 1
            elif item.get("hook"):
                hooks += 1
                category = item.get("reasonCategory") or "other"
                reasons[category] = reasons.get(category, 0) + 1
            else:
                dropped += 1
    for hook in report.get("hooks", []):
        if hook.get("category") == "customPolicy":
            reasons["customPolicy"] = reasons.get("customPolicy", 0) + 1
    return translated, relationships, hooks, dropped, reasons


def check_mapping(instar, repo, folder, bundles_by_repo):
    """[(check, ok, detail)] for one mapping model."""
    bundles = bundles_by_repo.get(repo, [])
    errors = []
    for bundle in bundles:
        report, error, _ = run_instar(instar, ["mapping", folder, "--model", bundle, "--format", "json"])
        if report is None:
            errors.append("%s: %s" % (Path(bundle).name, error))
            continue
        read = (True, "matched %s -> %s of %s (%s)" % (report.get("source"), report.get("destination"),
                                                      Path(bundle).name, report.get("match")))
        translated, relationships, hooks, dropped, reasons = translation_counts(report)
        detail = "%d SQL, %d through other entity mappings, %d hook(s)%s" % (
            translated, relationships, hooks + reasons.get("customPolicy", 0),
            (" (" + ", ".join("%s %d" % kv for kv in sorted(reasons.items())) + ")") if reasons else "")
        if dropped:
            return [(CHECK_MAPPING_READ,) + read,
                    (CHECK_MAPPING_TRANSLATE, False, "%d expression(s) neither SQL nor a hook; %s" % (dropped, detail))]
        return [(CHECK_MAPPING_READ,) + read, (CHECK_MAPPING_TRANSLATE, True, detail)]
    return [(CHECK_MAPPING_READ, False, "no bundle of %s fits it: %s" % (repo, "; ".join(errors) or "no bundle"))]


def run_mapping_checks(instar, corpus, bundles, results, pool):
    bundles_by_repo = {}
    for b in bundles:
        if b.rel is not None:
            bundles_by_repo.setdefault(b.repo, []).append(str(corpus / b.repo / b.rel))
    futures = [(repo, folder, pool.submit(check_mapping, instar, repo, folder, bundles_by_repo))
               for repo, folder in discover(corpus)]
    for repo, folder, future in futures:
        subject = "%s/%s" % (repo, folder.relative_to(corpus / repo).as_posix())
        try:
            outcome = future.result()
        except Exception as error:  # a bug in this script must not hide the other results
            outcome = [(CHECK_MAPPING_READ, False, "checker error: %r" % error)]
        for check, ok, detail in outcome:
            results.add(check, subject, ok, detail)
