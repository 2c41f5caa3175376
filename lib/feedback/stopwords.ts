/**
 * Words an exclude suggestion never proposes: English function words, and the words nearly every
 * job posting uses, which say nothing about why one is not a fit ("remote", "project",
 * "experience"; "development", the generic half of the boards' category labels: Upwork's "Web
 * Development", "Ecommerce Website Development", Remotive's "Software Development"). Lowercase. A word missing here only costs a poor suggestion, which the
 * subscriber is free to ignore: the page shows its measured effect before anything changes.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `
a about above after again against all also am an and any are aren as at be because been before being below between both
but by can cannot could did didn do does doesn doing don down during each either else etc ever every few for from
further get gets getting go goes had has hasn have haven having he her here hers herself him himself his how however i
if in into is isn it its itself just let ll like made make makes many may me might more most much must my myself need
needed needs new no nor not now of off on once one only or other our ours ourselves out over own per please plus re
same she should so some such than that the their theirs them themselves then there these they this those through to
too under until up upon us use used using ve very via want wanted wants was we well were what when where which while
who whom why will with within without would yes yet you your yours yourself yourselves
able across ago already always another anyone anything around available based best better big day days done early
easy end etc everything fast first full good great help high hour hourly hours include including job jobs know large
last least less level long look looking lot low min minimum max maximum month monthly months next part people place
possible quick quickly ready real right small soon start started strong sure take team teams thing things time times
today top two three four five us usd eur gbp week weekly weeks work worked working works year years
applicant applicants apply application budget candidate candidates client clients company contract contractor
description details developer developers development engineer engineers experience experienced expert fixed freelance freelancer
freelancers hire hiring opportunity position posted posting price professional project projects rate remote required
requirement requirements responsibilities role salary skill skills specialist task tasks
`
    .split(/\s+/)
    .filter(Boolean),
);
