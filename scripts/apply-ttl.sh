#!/usr/bin/env bash
# Turns on Firestore's TTL policy on `expireAt` for every ledger collection (feedback and postingKeys included), for `users` (only
# unconfirmed signups carry it there) and for `adminSessions` (ops page logins), so expired
# documents are deleted by Firestore itself (usually within a day of expiring). Needs the gcloud CLI, logged
# in with rights on the project. `npm run scout -- prune` does the same job by hand where there is no TTL.
#   scripts/apply-ttl.sh <firebase-project-id>
set -euo pipefail
project="${1:?usage: scripts/apply-ttl.sh <firebase-project-id>}"
for collection in jobs postingKeys deliveries emails messages runs rateLimits users adminSessions matches aiUsage nearMisses feedback channelLinks; do
  echo "TTL on ${collection}.expireAt"
  gcloud firestore fields ttls update expireAt --collection-group="${collection}" --enable-ttl --project="${project}" --quiet
done
echo "Check with: gcloud firestore fields ttls list --project=${project}"
