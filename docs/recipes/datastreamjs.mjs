// datastreamjs (https://github.com/datastreamapp/datastreamjs) pointed at Tributary, without modifying it.
//
// datastreamjs builds every URL from a fixed `https://api.datastream.org`. Its transport (@datastream/fetch)
// calls the global `fetch` at request time, so a small shim installed *before* importing it can send those
// requests to Tributary. Recent @datastream/fetch versions refuse a next-page link on another origin than the
// first request, so run Tributary with PUBLIC_BASE_URL=https://api.datastream.org: its @odata.nextLink and
// Link headers then name that origin too and go through the same shim.
//
//   npm install https://github.com/datastreamapp/datastreamjs   (not published on npm)
//   PUBLIC_BASE_URL=https://api.datastream.org make api          (in the Tributary checkout)
//   TRIBUTARY_URL=http://localhost:3000 node docs/recipes/datastreamjs.mjs
//
// Not run in CI: datastreamjs is not installable from the npm registry. See datastreamjs.md for the
// alternative with a hosts entry and TLS, which needs no shim.

const DATASTREAM = 'https://api.datastream.org'
const TRIBUTARY = (process.env.TRIBUTARY_URL ?? 'http://localhost:3000').replace(/\/+$/, '')

const realFetch = globalThis.fetch
globalThis.fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
  return realFetch(url.startsWith(`${DATASTREAM}/`) ? TRIBUTARY + url.slice(DATASTREAM.length) : input, init)
}

const { setAPIKey, setUserAgent, metadata, observations } = await import('@datastreamapp/datastreamjs')

if (process.env.TRIBUTARY_API_KEY) setAPIKey(process.env.TRIBUTARY_API_KEY)
setUserAgent('TributaryRecipe', '1.0')

// Datasets and how to cite them.
const datasets = []
for await (const d of await metadata({ $select: 'DOI,DatasetName,Citation,Licence' })) datasets.push(d)
for (const d of datasets) console.log(`${d.DatasetName}: https://doi.org/${d.DOI} (${d.Licence})`)

// Observations of one dataset. Always pass $filter: datastreamjs appends `and ${$filter}` to its per-location
// requests and would otherwise send the text "undefined".
let n = 0
const stream = await observations({
  $select: 'Id,LocationId,CharacteristicName,ActivityStartDate,ResultValue,ResultUnit',
  $filter: `DOI eq '${datasets[0].DOI.replaceAll("'", "''")}'`,
  $top: 10000
})
for await (const row of stream) if (n++ < 3) console.log(row)
console.log(`${n} observations`)
