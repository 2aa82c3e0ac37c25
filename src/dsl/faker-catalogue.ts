import {
  checkPattern,
  checkSize,
  checkTextArgument,
  MAX_TEMPLATE_COUNT,
} from './template-bounds.js'

/*
 * The faker methods a template may call (`{{faker 'person.firstName'}}`), and how their arguments
 * are bounded. Only these names resolve: a template never walks faker's objects, so
 * `constructor.constructor`, `person.faker` or `helpers.multiple` (which takes a function) reach
 * nothing. Methods that take functions, objects or faker's raw definitions are left out.
 *
 * Each entry is `method`, or `method:kind` where kind is `length` or `count` (the first argument,
 * or `@i` the i-th, is that size; so are the options `length`, `count`, `min`, `max` and
 * `extensionCount`), `pattern` (the first argument is a pattern with `{n}` repetitions) or `fake`.
 */
const catalogue: Readonly<Record<string, string>> = {
  airline: 'airport airline airplane recordLocator seat aircraftType flightNumber:length',
  animal:
    'dog cat snake bear lion cetacean horse bird cow fish crocodilia insect rabbit rodent type petName',
  book: 'author format genre publisher series title',
  color:
    'human space cssSupportedFunction cssSupportedSpace rgb cmyk hsl hwb lab lch colorByCSSColorSpace',
  commerce:
    'department productName price productAdjective productMaterial product productDescription isbn upc',
  company:
    'name catchPhrase buzzPhrase catchPhraseAdjective catchPhraseDescriptor catchPhraseNoun buzzAdjective buzzVerb buzzNoun',
  database: 'column type collation engine mongodbObjectId',
  datatype: 'boolean',
  date: 'month weekday timeZone anytime past future between betweens:count recent soon birthdate',
  finance:
    'accountNumber:length accountName routingNumber amount transactionType currency currencyCode currencyName currencySymbol ' +
    'currencyNumericCode bitcoinAddress litecoinAddress creditCardNumber:pattern creditCardCVV creditCardIssuer pin:length ' +
    'ethereumAddress iban bic transactionDescription',
  food: 'adjective description dish ethnicCategory fruit ingredient meat spice vegetable',
  git: 'branch commitEntry commitMessage commitDate commitSha:length',
  hacker: 'abbreviation adjective noun verb ingverb phrase',
  helpers:
    'slugify replaceSymbols replaceCreditCardSymbols:pattern fromRegExp:pattern shuffle arrayElement arrayElements:count@1 rangeToNumber fake:fake',
  image: 'avatar avatarGitHub personPortrait url urlLoremFlickr urlPicsumPhotos dataUri',
  internet:
    'email exampleEmail username displayName protocol httpMethod httpStatusCode url domainName domainSuffix domainWord ' +
    'ip ipv4 ipv6 port userAgent mac password:length emoji jwtAlgorithm jwt',
  location:
    'zipCode city buildingNumber street streetAddress postalAddress secondaryAddress county country continent countryCode ' +
    'state direction cardinalDirection ordinalDirection timeZone language latitude longitude nearbyGPSCoordinate',
  lorem:
    'word words:count sentence:count slug:count sentences:count paragraph:count paragraphs:count text lines:count',
  music: 'album artist genre songName',
  number: 'int float binary octal hex bigInt romanNumeral',
  person:
    'firstName lastName middleName fullName gender sex sexType bio prefix suffix jobTitle jobDescriptor jobArea jobType zodiacSign',
  phone: 'number imei',
  science: 'chemicalElement unit',
  string:
    'fromCharacters:length@1 alpha:length alphanumeric:length binary:length octal:length hexadecimal:length numeric:length ' +
    'sample:length uuid ulid nanoid:length symbol:length',
  system:
    'fileName:count commonFileName mimeType commonFileType commonFileExt fileType fileExt directoryPath filePath semver networkInterface cron',
  vehicle: 'vehicle manufacturer model type fuel vin color vrm bicycle',
  word: 'adjective adverb conjunction interjection noun preposition verb sample words:count',
}

/** How the runtime checks one faker method's arguments. */
interface FakerMethod {
  readonly module: string
  readonly method: string
  /** The argument (and options) that are a length or a count, or null. */
  readonly size: { readonly kind: 'length' | 'count'; readonly at: number } | null
  /** The first argument is a pattern faker expands (`{n}` repetitions). */
  readonly pattern: boolean
  /** `helpers.fake`: the runtime expands the `{{module.method}}` tokens itself. */
  readonly fake: boolean
}

function parseCatalogue(): ReadonlyMap<string, FakerMethod> {
  const out = new Map<string, FakerMethod>()
  for (const [module, list] of Object.entries(catalogue)) {
    for (const entry of list.split(' ')) {
      const [method = '', kind = '', at = '0'] = entry.split(/[:@]/)
      const size =
        kind === 'length' || kind === 'count' ? ({ kind, at: Number(at) } as const) : null
      out.set(`${module}.${method}`, {
        module,
        method,
        size,
        pattern: kind === 'pattern',
        fake: kind === 'fake',
      })
    }
  }
  return out
}

/** Every method a template may call, by `module.method`. */
export const fakerMethods: ReadonlyMap<string, FakerMethod> = parseCatalogue()

/** Options that are sizes for a method that takes a length or count (`length=8`, `min=1 max=5`). */
const sizeOptions = new Set(['length', 'count', 'min', 'max', 'extensionCount'])

/** `{{module.method}}` in a `helpers.fake` pattern. */
export const fakeToken = /\{\{\s*([A-Za-z]+)\.([A-Za-z]+)\s*\}\}/g

/** An argument known only when the template renders (checked then). */
export const unknownArgument: unique symbol = Symbol('unknown argument')

/** The method a `faker` name resolves to, or an Error naming it. */
export function fakerMethodOf(path: unknown): FakerMethod {
  if (typeof path !== 'string') throw new Error("needs a name like 'person.firstName'")
  const found = fakerMethods.get(path)
  if (found === undefined) {
    throw new Error(
      `faker has no method "${path.slice(0, 100)}" that a template may call (docs/dsl.md lists them)`,
    )
  }
  return found
}

function checkValue(value: unknown, where: string): void {
  if (
    value === unknownArgument ||
    value === null ||
    value === undefined ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  ) {
    return
  }
  if (typeof value === 'string') return checkTextArgument(value, where)
  if (Array.isArray(value)) {
    if (value.length > MAX_TEMPLATE_COUNT) checkSize(value.length, 'count', where)
    for (const item of value) {
      if (item !== null && typeof item === 'object') {
        throw new Error(`${where}: a list may hold only text and numbers`)
      }
      checkValue(item, where)
    }
    return
  }
  throw new Error(
    `${where} takes text, numbers, lists of them and name=value options, not ${typeof value === 'object' ? 'an object' : typeof value}`,
  )
}

/**
 * Checks the arguments of a faker call and returns those to pass (a numeric text given as a size
 * becomes its number; the name=value options, when any, are the last argument). Arguments equal
 * to `unknownArgument` (not known at load) are skipped. Throws an Error for a call that cannot
 * work, TemplateBoundError for a size above its bound.
 *
 * @example
 * checkFakerArguments(fakerMethodOf('string.alpha'), ['8'], null) // [8]
 */
export function checkFakerArguments(
  method: FakerMethod,
  params: readonly unknown[],
  options: Record<string, unknown> | null,
): unknown[] {
  const where = `faker ${method.module}.${method.method}`
  const args = params.slice()
  for (let i = 0; i < args.length; i++) {
    const value = args[i]
    if (value === unknownArgument) continue
    checkValue(value, where)
    if (method.size !== null && method.size.at === i) {
      args[i] = checkSize(value, method.size.kind, where)
    } else if (i === 0 && method.pattern && typeof value === 'string') checkPattern(value, where)
    else if (i === 0 && method.fake) checkFakePattern(value, where)
  }
  if (options !== null) {
    const bag: Record<string, unknown> = Object.create(null) as Record<string, unknown>
    for (const name of Object.keys(options)) {
      const value = options[name]
      if (value === unknownArgument) continue
      checkValue(value, `${where} ${name}=`)
      bag[name] =
        method.size !== null && sizeOptions.has(name)
          ? checkSize(value, method.size.kind, `${where} ${name}=`)
          : value
    }
    args.push(bag)
  }
  return args
}

/** A `helpers.fake` pattern: each `{{...}}` must be a method of the catalogue, outside `helpers`, without arguments. */
function checkFakePattern(value: unknown, where: string): void {
  if (typeof value !== 'string') {
    throw new Error(`${where} needs a text with {{module.method}} tokens`)
  }
  const rest = value.replace(fakeToken, (token, module: string, name: string) => {
    const found = fakerMethods.get(`${module}.${name}`)
    if (found === undefined || found.module === 'helpers') {
      throw new Error(`${where}: ${token} is not a faker method a template may call`)
    }
    return ''
  })
  if (rest.includes('{{')) {
    throw new Error(`${where}: tokens are {{module.method}}, without arguments`)
  }
}
