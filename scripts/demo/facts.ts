// The demo's facts, written out: capitals, the elements, colours, flags, notes,
// verbs and everyday words. The decks of content.ts are made from them.

/** [country, capital, continent] */
export const CAPITALS: ReadonlyArray<readonly [string, string, string]> = [
  ['France', 'Paris', 'Europe'], ['Germany', 'Berlin', 'Europe'], ['Italy', 'Rome', 'Europe'], ['Spain', 'Madrid', 'Europe'],
  ['Portugal', 'Lisbon', 'Europe'], ['the United Kingdom', 'London', 'Europe'], ['Ireland', 'Dublin', 'Europe'], ['Belgium', 'Brussels', 'Europe'],
  ['the Netherlands', 'Amsterdam', 'Europe'], ['Luxembourg', 'Luxembourg', 'Europe'], ['Switzerland', 'Bern', 'Europe'], ['Austria', 'Vienna', 'Europe'],
  ['Denmark', 'Copenhagen', 'Europe'], ['Norway', 'Oslo', 'Europe'], ['Sweden', 'Stockholm', 'Europe'], ['Finland', 'Helsinki', 'Europe'],
  ['Iceland', 'Reykjavík', 'Europe'], ['Estonia', 'Tallinn', 'Europe'], ['Latvia', 'Riga', 'Europe'], ['Lithuania', 'Vilnius', 'Europe'],
  ['Poland', 'Warsaw', 'Europe'], ['Czechia', 'Prague', 'Europe'], ['Slovakia', 'Bratislava', 'Europe'], ['Hungary', 'Budapest', 'Europe'],
  ['Slovenia', 'Ljubljana', 'Europe'], ['Croatia', 'Zagreb', 'Europe'], ['Bosnia and Herzegovina', 'Sarajevo', 'Europe'], ['Serbia', 'Belgrade', 'Europe'],
  ['Montenegro', 'Podgorica', 'Europe'], ['Albania', 'Tirana', 'Europe'], ['North Macedonia', 'Skopje', 'Europe'], ['Greece', 'Athens', 'Europe'],
  ['Bulgaria', 'Sofia', 'Europe'], ['Romania', 'Bucharest', 'Europe'], ['Moldova', 'Chișinău', 'Europe'], ['Ukraine', 'Kyiv', 'Europe'],
  ['Belarus', 'Minsk', 'Europe'], ['Russia', 'Moscow', 'Europe'], ['Malta', 'Valletta', 'Europe'], ['Cyprus', 'Nicosia', 'Europe'],
  ['Andorra', 'Andorra la Vella', 'Europe'], ['Monaco', 'Monaco', 'Europe'], ['Liechtenstein', 'Vaduz', 'Europe'], ['San Marino', 'San Marino', 'Europe'],
  ['Turkey', 'Ankara', 'Asia'], ['Georgia', 'Tbilisi', 'Asia'], ['Armenia', 'Yerevan', 'Asia'], ['Azerbaijan', 'Baku', 'Asia'],
  ['Iran', 'Tehran', 'Asia'], ['Iraq', 'Baghdad', 'Asia'], ['Syria', 'Damascus', 'Asia'], ['Lebanon', 'Beirut', 'Asia'],
  ['Jordan', 'Amman', 'Asia'], ['Saudi Arabia', 'Riyadh', 'Asia'], ['Yemen', 'Sanaa', 'Asia'], ['Oman', 'Muscat', 'Asia'],
  ['the United Arab Emirates', 'Abu Dhabi', 'Asia'], ['Qatar', 'Doha', 'Asia'], ['Kuwait', 'Kuwait City', 'Asia'], ['Afghanistan', 'Kabul', 'Asia'],
  ['Pakistan', 'Islamabad', 'Asia'], ['India', 'New Delhi', 'Asia'], ['Nepal', 'Kathmandu', 'Asia'], ['Bangladesh', 'Dhaka', 'Asia'],
  ['Sri Lanka', 'Colombo', 'Asia'], ['China', 'Beijing', 'Asia'], ['Mongolia', 'Ulaanbaatar', 'Asia'], ['Japan', 'Tokyo', 'Asia'],
  ['South Korea', 'Seoul', 'Asia'], ['North Korea', 'Pyongyang', 'Asia'], ['Vietnam', 'Hanoi', 'Asia'], ['Laos', 'Vientiane', 'Asia'],
  ['Cambodia', 'Phnom Penh', 'Asia'], ['Thailand', 'Bangkok', 'Asia'], ['Myanmar', 'Naypyidaw', 'Asia'], ['Malaysia', 'Kuala Lumpur', 'Asia'],
  ['Singapore', 'Singapore', 'Asia'], ['Indonesia', 'Jakarta', 'Asia'], ['the Philippines', 'Manila', 'Asia'], ['Kazakhstan', 'Astana', 'Asia'],
  ['Uzbekistan', 'Tashkent', 'Asia'], ['Kyrgyzstan', 'Bishkek', 'Asia'], ['Tajikistan', 'Dushanbe', 'Asia'], ['Turkmenistan', 'Ashgabat', 'Asia'],
  ['Egypt', 'Cairo', 'Africa'], ['Libya', 'Tripoli', 'Africa'], ['Tunisia', 'Tunis', 'Africa'], ['Algeria', 'Algiers', 'Africa'],
  ['Morocco', 'Rabat', 'Africa'], ['Senegal', 'Dakar', 'Africa'], ['Mali', 'Bamako', 'Africa'], ['Niger', 'Niamey', 'Africa'],
  ['Nigeria', 'Abuja', 'Africa'], ['Ghana', 'Accra', 'Africa'], ['Cameroon', 'Yaoundé', 'Africa'], ['Ethiopia', 'Addis Ababa', 'Africa'],
  ['Kenya', 'Nairobi', 'Africa'], ['Uganda', 'Kampala', 'Africa'], ['Rwanda', 'Kigali', 'Africa'], ['Tanzania', 'Dodoma', 'Africa'],
  ['Angola', 'Luanda', 'Africa'], ['Zambia', 'Lusaka', 'Africa'], ['Zimbabwe', 'Harare', 'Africa'], ['Mozambique', 'Maputo', 'Africa'],
  ['Madagascar', 'Antananarivo', 'Africa'], ['Namibia', 'Windhoek', 'Africa'], ['Botswana', 'Gaborone', 'Africa'], ['Sudan', 'Khartoum', 'Africa'],
  ['Canada', 'Ottawa', 'North America'], ['the United States', 'Washington, D.C.', 'North America'], ['Mexico', 'Mexico City', 'North America'], ['Cuba', 'Havana', 'North America'],
  ['Jamaica', 'Kingston', 'North America'], ['Guatemala', 'Guatemala City', 'North America'], ['Honduras', 'Tegucigalpa', 'North America'], ['Nicaragua', 'Managua', 'North America'],
  ['Costa Rica', 'San José', 'North America'], ['Panama', 'Panama City', 'North America'], ['Colombia', 'Bogotá', 'South America'], ['Venezuela', 'Caracas', 'South America'],
  ['Ecuador', 'Quito', 'South America'], ['Peru', 'Lima', 'South America'], ['Bolivia', 'Sucre', 'South America'], ['Chile', 'Santiago', 'South America'],
  ['Argentina', 'Buenos Aires', 'South America'], ['Uruguay', 'Montevideo', 'South America'], ['Paraguay', 'Asunción', 'South America'], ['Brazil', 'Brasília', 'South America'],
  ['Australia', 'Canberra', 'Oceania'], ['New Zealand', 'Wellington', 'Oceania'], ['Fiji', 'Suva', 'Oceania'], ['Papua New Guinea', 'Port Moresby', 'Oceania']
]

/** [symbol, name], in order of atomic number from 1 */
export const ELEMENTS: ReadonlyArray<readonly [string, string]> = [
  ['H', 'hydrogen'], ['He', 'helium'], ['Li', 'lithium'], ['Be', 'beryllium'], ['B', 'boron'], ['C', 'carbon'], ['N', 'nitrogen'], ['O', 'oxygen'],
  ['F', 'fluorine'], ['Ne', 'neon'], ['Na', 'sodium'], ['Mg', 'magnesium'], ['Al', 'aluminium'], ['Si', 'silicon'], ['P', 'phosphorus'], ['S', 'sulfur'],
  ['Cl', 'chlorine'], ['Ar', 'argon'], ['K', 'potassium'], ['Ca', 'calcium'], ['Sc', 'scandium'], ['Ti', 'titanium'], ['V', 'vanadium'], ['Cr', 'chromium'],
  ['Mn', 'manganese'], ['Fe', 'iron'], ['Co', 'cobalt'], ['Ni', 'nickel'], ['Cu', 'copper'], ['Zn', 'zinc'], ['Ga', 'gallium'], ['Ge', 'germanium'],
  ['As', 'arsenic'], ['Se', 'selenium'], ['Br', 'bromine'], ['Kr', 'krypton'], ['Rb', 'rubidium'], ['Sr', 'strontium'], ['Y', 'yttrium'], ['Zr', 'zirconium'],
  ['Nb', 'niobium'], ['Mo', 'molybdenum'], ['Tc', 'technetium'], ['Ru', 'ruthenium'], ['Rh', 'rhodium'], ['Pd', 'palladium'], ['Ag', 'silver'], ['Cd', 'cadmium'],
  ['In', 'indium'], ['Sn', 'tin'], ['Sb', 'antimony'], ['Te', 'tellurium'], ['I', 'iodine'], ['Xe', 'xenon'], ['Cs', 'caesium'], ['Ba', 'barium'],
  ['La', 'lanthanum'], ['Ce', 'cerium'], ['Pr', 'praseodymium'], ['Nd', 'neodymium'], ['Pm', 'promethium'], ['Sm', 'samarium'], ['Eu', 'europium'], ['Gd', 'gadolinium'],
  ['Tb', 'terbium'], ['Dy', 'dysprosium'], ['Ho', 'holmium'], ['Er', 'erbium'], ['Tm', 'thulium'], ['Yb', 'ytterbium'], ['Lu', 'lutetium'], ['Hf', 'hafnium'],
  ['Ta', 'tantalum'], ['W', 'tungsten'], ['Re', 'rhenium'], ['Os', 'osmium'], ['Ir', 'iridium'], ['Pt', 'platinum'], ['Au', 'gold'], ['Hg', 'mercury'],
  ['Tl', 'thallium'], ['Pb', 'lead'], ['Bi', 'bismuth'], ['Po', 'polonium'], ['At', 'astatine'], ['Rn', 'radon'], ['Fr', 'francium'], ['Ra', 'radium'],
  ['Ac', 'actinium'], ['Th', 'thorium'], ['Pa', 'protactinium'], ['U', 'uranium'], ['Np', 'neptunium'], ['Pu', 'plutonium'], ['Am', 'americium'], ['Cm', 'curium'],
  ['Bk', 'berkelium'], ['Cf', 'californium'], ['Es', 'einsteinium'], ['Fm', 'fermium'], ['Md', 'mendelevium'], ['No', 'nobelium'], ['Lr', 'lawrencium'], ['Rf', 'rutherfordium'],
  ['Db', 'dubnium'], ['Sg', 'seaborgium'], ['Bh', 'bohrium'], ['Hs', 'hassium'], ['Mt', 'meitnerium'], ['Ds', 'darmstadtium'], ['Rg', 'roentgenium'], ['Cn', 'copernicium'],
  ['Nh', 'nihonium'], ['Fl', 'flerovium'], ['Mc', 'moscovium'], ['Lv', 'livermorium'], ['Ts', 'tennessine'], ['Og', 'oganesson']
]

/** [name, red, green, blue]: colours of the CSS named colours */
export const COLOURS: ReadonlyArray<readonly [string, number, number, number]> = [
  ['crimson', 220, 20, 60], ['tomato', 255, 99, 71], ['coral', 255, 127, 80], ['salmon', 250, 128, 114], ['orange red', 255, 69, 0],
  ['dark orange', 255, 140, 0], ['gold', 255, 215, 0], ['khaki', 240, 230, 140], ['olive', 128, 128, 0], ['chartreuse', 127, 255, 0],
  ['lime green', 50, 205, 50], ['forest green', 34, 139, 34], ['sea green', 46, 139, 87], ['teal', 0, 128, 128], ['turquoise', 64, 224, 208],
  ['aquamarine', 127, 255, 212], ['cyan', 0, 255, 255], ['sky blue', 135, 206, 235], ['steel blue', 70, 130, 180], ['royal blue', 65, 105, 225],
  ['navy', 0, 0, 128], ['midnight blue', 25, 25, 112], ['indigo', 75, 0, 130], ['slate blue', 106, 90, 205], ['lavender', 230, 230, 250],
  ['plum', 221, 160, 221], ['orchid', 218, 112, 214], ['magenta', 255, 0, 255], ['purple', 128, 0, 128], ['hot pink', 255, 105, 180],
  ['pink', 255, 192, 203], ['maroon', 128, 0, 0], ['brown', 165, 42, 42], ['sienna', 160, 82, 45], ['chocolate', 210, 105, 30],
  ['tan', 210, 180, 140], ['beige', 245, 245, 220], ['ivory', 255, 255, 240], ['silver', 192, 192, 192], ['slate grey', 112, 128, 144]
]

/** [country, stripe colours as hex, 'vertical' or 'horizontal']: flags of three equal stripes */
export const FLAGS: ReadonlyArray<readonly [string, readonly [string, string, string], 'vertical' | 'horizontal']> = [
  ['France', ['#0055a4', '#ffffff', '#ef4135'], 'vertical'], ['Italy', ['#009246', '#ffffff', '#ce2b37'], 'vertical'],
  ['Ireland', ['#169b62', '#ffffff', '#ff883e'], 'vertical'], ['Belgium', ['#000000', '#fdda24', '#ef3340'], 'vertical'],
  ['Romania', ['#002b7f', '#fcd116', '#ce1126'], 'vertical'], ['Mali', ['#14b53a', '#fcd116', '#ce1126'], 'vertical'],
  ['Guinea', ['#ce1126', '#fcd116', '#009460'], 'vertical'], ['Nigeria', ['#008751', '#ffffff', '#008751'], 'vertical'],
  ['Peru', ['#d91023', '#ffffff', '#d91023'], 'vertical'], ['Côte d\'Ivoire', ['#f77f00', '#ffffff', '#009e60'], 'vertical'],
  ['Germany', ['#000000', '#dd0000', '#ffce00'], 'horizontal'], ['the Netherlands', ['#ae1c28', '#ffffff', '#21468b'], 'horizontal'],
  ['Russia', ['#ffffff', '#0039a6', '#d52b1e'], 'horizontal'], ['Hungary', ['#ce2939', '#ffffff', '#477050'], 'horizontal'],
  ['Bulgaria', ['#ffffff', '#00966e', '#d62612'], 'horizontal'], ['Lithuania', ['#fdb913', '#006a44', '#c1272d'], 'horizontal'],
  ['Estonia', ['#0072ce', '#000000', '#ffffff'], 'horizontal'], ['Austria', ['#ed2939', '#ffffff', '#ed2939'], 'horizontal'],
  ['Luxembourg', ['#ed2939', '#ffffff', '#00a1de'], 'horizontal'], ['Yemen', ['#ce1126', '#ffffff', '#000000'], 'horizontal'],
  ['Sierra Leone', ['#1eb53a', '#ffffff', '#0072c6'], 'horizontal'], ['Gabon', ['#009e60', '#fcd116', '#3a75c4'], 'horizontal'],
  ['Armenia', ['#d90012', '#0033a0', '#f2a800'], 'horizontal'], ['Bolivia', ['#d52b1e', '#f9e300', '#007934'], 'horizontal']
]

/** The notes of two octaves from middle C, and their frequencies (equal temperament, A4 = 440 Hz). */
export const NOTES: ReadonlyArray<readonly [string, number]> = ['C', 'C♯', 'D', 'D♯', 'E', 'F', 'F♯', 'G', 'G♯', 'A', 'A♯', 'B']
  .flatMap((name, index) => [4, 5].map((octave) => [`${name}${octave}`, 440 * Math.pow(2, (index - 9 + 12 * (octave - 4)) / 12)] as const))
  .sort((a, b) => a[1] - b[1])

/** Spanish verbs regular in the present and the preterite. */
export const SPANISH_VERBS: readonly string[] = [
  'hablar', 'trabajar', 'estudiar', 'bailar', 'cantar', 'cocinar', 'comprar', 'escuchar', 'mirar', 'necesitar', 'tomar', 'usar',
  'viajar', 'visitar', 'ayudar', 'caminar', 'esperar', 'limpiar', 'llamar', 'llevar', 'nadar', 'preguntar', 'comer', 'aprender',
  'beber', 'correr', 'deber', 'vender', 'comprender', 'temer', 'vivir', 'escribir', 'abrir', 'decidir', 'recibir', 'subir',
  'compartir', 'unir', 'sufrir', 'describir'
]

/** [English, Spanish with its article] */
export const SPANISH_WORDS: ReadonlyArray<readonly [string, string]> = [
  ['the house', 'la casa'], ['the dog', 'el perro'], ['the cat', 'el gato'], ['the book', 'el libro'], ['the table', 'la mesa'], ['the chair', 'la silla'],
  ['the window', 'la ventana'], ['the door', 'la puerta'], ['the street', 'la calle'], ['the city', 'la ciudad'], ['the town', 'el pueblo'], ['the car', 'el coche'],
  ['the train', 'el tren'], ['the water', 'el agua'], ['the bread', 'el pan'], ['the milk', 'la leche'], ['the apple', 'la manzana'], ['the cheese', 'el queso'],
  ['the egg', 'el huevo'], ['the fish', 'el pescado'], ['the meat', 'la carne'], ['the coffee', 'el café'], ['the tea', 'el té'], ['the wine', 'el vino'],
  ['the beer', 'la cerveza'], ['the friend', 'el amigo'], ['the family', 'la familia'], ['the mother', 'la madre'], ['the father', 'el padre'], ['the brother', 'el hermano'],
  ['the sister', 'la hermana'], ['the child', 'el niño'], ['the school', 'la escuela'], ['the teacher', 'el profesor'], ['the work', 'el trabajo'], ['the money', 'el dinero'],
  ['the day', 'el día'], ['the night', 'la noche'], ['the morning', 'la mañana'], ['the week', 'la semana'], ['the month', 'el mes'], ['the year', 'el año'],
  ['the time', 'el tiempo'], ['the sun', 'el sol'], ['the moon', 'la luna'], ['the sea', 'el mar'], ['the beach', 'la playa'], ['the mountain', 'la montaña'],
  ['the river', 'el río'], ['the tree', 'el árbol'], ['the flower', 'la flor'], ['the rain', 'la lluvia'], ['the snow', 'la nieve'], ['the wind', 'el viento'],
  ['the hand', 'la mano'], ['the head', 'la cabeza'], ['the eye', 'el ojo'], ['the mouth', 'la boca'], ['the heart', 'el corazón'], ['the language', 'el idioma'],
  ['the word', 'la palabra'], ['the question', 'la pregunta'], ['the answer', 'la respuesta'], ['the shop', 'la tienda'], ['the market', 'el mercado'], ['the room', 'la habitación'],
  ['the kitchen', 'la cocina'], ['the garden', 'el jardín'], ['the key', 'la llave'], ['the bed', 'la cama'], ['the clothes', 'la ropa'], ['the shoe', 'el zapato'],
  ['big', 'grande'], ['small', 'pequeño'], ['new', 'nuevo'], ['old', 'viejo'], ['good', 'bueno'], ['bad', 'malo'], ['hot', 'caliente'], ['cold', 'frío'],
  ['easy', 'fácil'], ['difficult', 'difícil'], ['happy', 'feliz'], ['sad', 'triste'], ['tired', 'cansado'], ['hungry', 'hambriento'], ['early', 'temprano'], ['late', 'tarde'],
  ['always', 'siempre'], ['never', 'nunca'], ['today', 'hoy'], ['tomorrow', 'mañana'], ['yesterday', 'ayer'], ['here', 'aquí'], ['there', 'allí'], ['now', 'ahora']
]

/** [English, German with its article] */
export const GERMAN_WORDS: ReadonlyArray<readonly [string, string]> = [
  ['the house', 'das Haus'], ['the dog', 'der Hund'], ['the cat', 'die Katze'], ['the book', 'das Buch'], ['the table', 'der Tisch'], ['the chair', 'der Stuhl'],
  ['the window', 'das Fenster'], ['the door', 'die Tür'], ['the street', 'die Straße'], ['the city', 'die Stadt'], ['the village', 'das Dorf'], ['the car', 'das Auto'],
  ['the train', 'der Zug'], ['the water', 'das Wasser'], ['the bread', 'das Brot'], ['the milk', 'die Milch'], ['the apple', 'der Apfel'], ['the cheese', 'der Käse'],
  ['the egg', 'das Ei'], ['the fish', 'der Fisch'], ['the meat', 'das Fleisch'], ['the coffee', 'der Kaffee'], ['the tea', 'der Tee'], ['the wine', 'der Wein'],
  ['the beer', 'das Bier'], ['the friend', 'der Freund'], ['the family', 'die Familie'], ['the mother', 'die Mutter'], ['the father', 'der Vater'], ['the brother', 'der Bruder'],
  ['the sister', 'die Schwester'], ['the child', 'das Kind'], ['the school', 'die Schule'], ['the teacher', 'der Lehrer'], ['the work', 'die Arbeit'], ['the money', 'das Geld'],
  ['the day', 'der Tag'], ['the night', 'die Nacht'], ['the morning', 'der Morgen'], ['the week', 'die Woche'], ['the month', 'der Monat'], ['the year', 'das Jahr'],
  ['the time', 'die Zeit'], ['the sun', 'die Sonne'], ['the moon', 'der Mond'], ['the sea', 'das Meer'], ['the beach', 'der Strand'], ['the mountain', 'der Berg'],
  ['the river', 'der Fluss'], ['the tree', 'der Baum'], ['the flower', 'die Blume'], ['the rain', 'der Regen'], ['the snow', 'der Schnee'], ['the wind', 'der Wind'],
  ['the hand', 'die Hand'], ['the head', 'der Kopf'], ['the eye', 'das Auge'], ['the mouth', 'der Mund'], ['the heart', 'das Herz'], ['the language', 'die Sprache'],
  ['the word', 'das Wort'], ['the question', 'die Frage'], ['the answer', 'die Antwort'], ['the shop', 'der Laden'], ['the market', 'der Markt'], ['the room', 'das Zimmer'],
  ['the kitchen', 'die Küche'], ['the garden', 'der Garten'], ['the key', 'der Schlüssel'], ['the bed', 'das Bett'], ['the clothes', 'die Kleidung'], ['the shoe', 'der Schuh'],
  ['big', 'groß'], ['small', 'klein'], ['new', 'neu'], ['old', 'alt'], ['good', 'gut'], ['bad', 'schlecht'], ['hot', 'heiß'], ['cold', 'kalt'],
  ['easy', 'leicht'], ['difficult', 'schwierig'], ['happy', 'glücklich'], ['sad', 'traurig'], ['tired', 'müde'], ['hungry', 'hungrig'], ['early', 'früh'], ['late', 'spät'],
  ['always', 'immer'], ['never', 'nie'], ['today', 'heute'], ['tomorrow', 'morgen'], ['yesterday', 'gestern'], ['here', 'hier'], ['there', 'dort'], ['now', 'jetzt']
]

/** [kana, romaji]: the 46 basic hiragana */
export const HIRAGANA: ReadonlyArray<readonly [string, string]> = [
  ['あ', 'a'], ['い', 'i'], ['う', 'u'], ['え', 'e'], ['お', 'o'], ['か', 'ka'], ['き', 'ki'], ['く', 'ku'], ['け', 'ke'], ['こ', 'ko'],
  ['さ', 'sa'], ['し', 'shi'], ['す', 'su'], ['せ', 'se'], ['そ', 'so'], ['た', 'ta'], ['ち', 'chi'], ['つ', 'tsu'], ['て', 'te'], ['と', 'to'],
  ['な', 'na'], ['に', 'ni'], ['ぬ', 'nu'], ['ね', 'ne'], ['の', 'no'], ['は', 'ha'], ['ひ', 'hi'], ['ふ', 'fu'], ['へ', 'he'], ['ほ', 'ho'],
  ['ま', 'ma'], ['み', 'mi'], ['む', 'mu'], ['め', 'me'], ['も', 'mo'], ['や', 'ya'], ['ゆ', 'yu'], ['よ', 'yo'],
  ['ら', 'ra'], ['り', 'ri'], ['る', 'ru'], ['れ', 're'], ['ろ', 'ro'], ['わ', 'wa'], ['を', 'wo'], ['ん', 'n']
]
